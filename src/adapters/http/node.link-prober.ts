import { lookup as dnsLookup } from 'node:dns';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { isBlockedAddress } from '../../core/egress.js';
import type { LinkErrorKind, LinkHop, LinkProbe, LinkProber } from '../../ports/link-prober.js';
import { blockedMessage, EGRESS_BLOCKED, guardedLookup, type LookupAll } from './guarded-lookup.js';

export interface NodeLinkProberOptions {
  /** One deadline for the whole chain of one URL (every hop, HEAD and GET). */
  timeoutMs: number;
  maxRedirects: number;
  /** Allow loopback/private targets (tests, on-premise installs): MAILROOM_LINK_CHECK_ALLOW_PRIVATE. */
  allowPrivate: boolean;
  userAgent: string;
  /** DNS lookup, swappable so tests resolve names without the machine's resolver. */
  lookup?: typeof dnsLookup;
  /** The egress policy; the default refuses loopback, private, link-local and reserved addresses. */
  isBlocked?: (address: string) => boolean;
}

class ProbeError extends Error {
  constructor(
    readonly kind: LinkErrorKind,
    message: string,
  ) {
    super(message);
  }
}

interface Answer {
  statusCode: number;
  location: string | undefined;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const DNS_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'ENODATA', 'ESERVFAIL']);
const TLS_CODE = /CERT|SSL|TLS|EPROTO/;

function errorKind(error: NodeJS.ErrnoException): LinkErrorKind {
  if (error instanceof ProbeError) return error.kind;
  if (error.code === EGRESS_BLOCKED) return 'blocked';
  if (error.name === 'AbortError' || error.code === 'ABORT_ERR') return 'timeout';
  if (error.code !== undefined && DNS_CODES.has(error.code)) return 'dns';
  if (error.code !== undefined && TLS_CODE.test(error.code)) return 'tls';
  return 'connection';
}

function errorText(error: NodeJS.ErrnoException, timeoutMs: number): string {
  if (errorKind(error) === 'timeout') return `no answer within ${timeoutMs} ms`;
  return error.code && !error.message.includes(error.code) ? `${error.code}: ${error.message}` : error.message;
}

function httpTarget(url: string): URL {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    throw new ProbeError('invalid-url', `${url} is not a valid URL`);
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') throw new ProbeError('invalid-url', `${target.protocol} URLs are not checked: only http and https`);
  if (target.hostname === '') throw new ProbeError('invalid-url', `${url} has no host`);
  return target;
}

/** node:http link prober: HEAD (GET when HEAD answers an error), redirects by hand so each hop passes the egress guard. */
export class NodeLinkProber implements LinkProber {
  private readonly lookup: LookupFunction | undefined;
  private readonly isBlocked: (address: string) => boolean;

  constructor(private readonly options: NodeLinkProberOptions) {
    this.isBlocked = options.isBlocked ?? isBlockedAddress;
    this.lookup = options.allowPrivate ? (options.lookup as LookupFunction | undefined) : guardedLookup((options.lookup ?? dnsLookup) as unknown as LookupAll, this.isBlocked);
  }

  async probe(url: string): Promise<LinkProbe> {
    const started = performance.now();
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), this.options.timeoutMs);
    const redirects: LinkHop[] = [];
    let current = url;
    const result = (statusCode: number | null, error: LinkProbe['error']): LinkProbe => ({
      url,
      finalUrl: current,
      statusCode,
      redirects,
      error,
      durationMs: Math.round(performance.now() - started),
    });
    try {
      for (;;) {
        const target = this.checkedTarget(current);
        const { answer, method } = await this.ask(target, deadline.signal);
        if (!REDIRECTS.has(answer.statusCode) || answer.location === undefined) return result(answer.statusCode, null);
        redirects.push({ url: current, method, statusCode: answer.statusCode });
        if (redirects.length > this.options.maxRedirects) throw new ProbeError('too-many-redirects', `more than ${this.options.maxRedirects} redirects`);
        current = this.nextUrl(answer.location, current);
      }
    } catch (error) {
      const failure = error as NodeJS.ErrnoException;
      return result(null, { kind: errorKind(failure), message: errorText(failure, this.options.timeoutMs) });
    } finally {
      clearTimeout(timer);
    }
  }

  private nextUrl(location: string, base: string): string {
    try {
      return new URL(location, base).href;
    } catch {
      throw new ProbeError('invalid-url', `redirect to an invalid URL: ${location.slice(0, 200)}`);
    }
  }

  /** An IP literal never reaches the lookup, so the policy is applied to it here. */
  private checkedTarget(url: string): URL {
    const target = httpTarget(url);
    const host = target.hostname.replace(/^\[|\]$/g, '');
    if (!this.options.allowPrivate && isIP(host) !== 0 && this.isBlocked(host)) throw new ProbeError('blocked', blockedMessage(host, host));
    return target;
  }

  /** HEAD; servers that refuse or mishandle HEAD answer an error status, and then GET decides. */
  private async ask(target: URL, signal: AbortSignal): Promise<{ answer: Answer; method: LinkHop['method'] }> {
    const head = await this.request('HEAD', target, signal);
    if (head.statusCode < 400) return { answer: head, method: 'HEAD' };
    return { answer: await this.request('GET', target, signal), method: 'GET' };
  }

  /** One request; only the status line and headers are read, the body is dropped. */
  private request(method: LinkHop['method'], target: URL, signal: AbortSignal): Promise<Answer> {
    return new Promise((resolve, reject) => {
      const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
      const request = send(target, {
        method,
        agent: false,
        signal,
        headers: { 'user-agent': this.options.userAgent, accept: '*/*' },
        ...(this.lookup ? { lookup: this.lookup } : {}),
      });
      request.on('response', (response) => {
        resolve({ statusCode: response.statusCode ?? 0, location: response.headers.location });
        response.destroy();
      });
      request.on('error', reject);
      request.end();
    });
  }
}
