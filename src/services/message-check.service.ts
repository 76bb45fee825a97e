import type { Caller } from '../core/api-key.js';
import { ConflictError } from '../core/errors.js';
import { messageUrls, type MessageUrlKind } from '../core/message-urls.js';
import type { HtmlCompatibilityChecker, HtmlCompatibilityReport } from '../ports/html-compatibility.js';
import type { LinkProbe, LinkProber } from '../ports/link-prober.js';
import type { EmailService } from './email.service.js';

/** Issue 19: one deadline per URL (its whole redirect chain) and the redirects followed. */
export const LINK_CHECK_LIMITS = { timeoutMs: 5_000, maxRedirects: 5 } as const;
/** Issue 19: at most this many requests of one link check in flight. */
export const LINK_CHECK_CONCURRENCY = 20;
/** URLs one link check follows; a mail with more reports the rest as not checked (`truncated`). */
export const LINK_CHECK_MAX_URLS = 200;

export type HtmlCheck = HtmlCompatibilityReport & { emailId: string };

export type LinkResult = 'ok' | 'broken' | 'error';

export interface LinkCheckEntry extends LinkProbe {
  kind: MessageUrlKind;
  /** ok: the final answer is below 400; broken: 400 or above; error: no final answer (see `error`). */
  result: LinkResult;
}

export interface LinkCheck {
  emailId: string;
  /** Distinct http and https URLs of the mail's links and images. */
  total: number;
  truncated: boolean;
  summary: Record<LinkResult, number>;
  links: LinkCheckEntry[];
}

const resultOf = (probe: LinkProbe): LinkResult => (probe.statusCode === null ? 'error' : probe.statusCode < 400 ? 'ok' : 'broken');

/** Runs `work` over `items`, at most `limit` at a time, keeping their order. */
async function mapLimited<T, R>(items: T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const lane = async () => {
    for (let i = next++; i < items.length; i = next++) results[i] = await work(items[i] as T);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return results;
}

/**
 * On-demand checks of one stored mail (docs/checks.md). Reads through EmailService, so the scoping
 * and 404s are those of GET /emails/:id; nothing is stored.
 */
export class MessageCheckService {
  constructor(
    private readonly emails: EmailService,
    private readonly htmlChecker: HtmlCompatibilityChecker,
    private readonly linkProber: LinkProber,
  ) {}

  async htmlCheck(caller: Caller, id: string): Promise<HtmlCheck> {
    const { html } = await this.emails.contentOrThrow(caller, id);
    if (html === null || html.trim() === '') throw new ConflictError('EMAIL_HAS_NO_HTML', `Email ${id} has no HTML body to check`);
    return { emailId: id, ...(await this.htmlChecker.check(html)) };
  }

  async linkCheck(caller: Caller, id: string): Promise<LinkCheck> {
    const { html, text } = await this.emails.contentOrThrow(caller, id);
    const urls = messageUrls(html, text);
    const checked = urls.slice(0, LINK_CHECK_MAX_URLS);
    const links = await mapLimited(checked, LINK_CHECK_CONCURRENCY, async ({ url, kind }) => {
      const probe = await this.linkProber.probe(url);
      return { ...probe, kind, result: resultOf(probe) };
    });
    const summary: Record<LinkResult, number> = { ok: 0, broken: 0, error: 0 };
    for (const link of links) summary[link.result] += 1;
    return { emailId: id, total: urls.length, truncated: urls.length > checked.length, summary, links };
  }
}
