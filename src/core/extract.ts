import { findCodes, type FoundCode } from './extract-codes.js';
import { htmlLinks, textLinks } from './extract-links.js';
import { htmlToText } from './html-text.js';

/** What a link is for, judged from its anchor text, its URL and the sentence around it. */
export const LINK_KINDS = ['verification', 'magic-login', 'password-reset', 'unsubscribe', 'other'] as const;
export type LinkKind = (typeof LINK_KINDS)[number];

export interface ExtractedLink {
  url: string;
  text: string;
  kind: LinkKind;
}

/** Auth artefacts found in a message (spec 2.6; docs/inboxes.md describes the rules). */
export interface Extracted {
  /** The numeric code most likely meant to be typed in. */
  otp: string | null;
  /** The most likely code of any form (numeric or letters and digits). */
  verificationCode: string | null;
  links: ExtractedLink[];
  /** Every code found, in reading order. */
  codes: string[];
  /** The first verification or magic-login link: the one a tester most likely wants to open. */
  magicLink: string | null;
}

/** Bodies beyond this are not scanned: auth mails are short, and ingest must stay fast on huge newsletters. */
const MAX_SCANNED_CHARS = 100_000;
const BLOCK_OPENING = /<(?:p|div|tr|li|h[1-6]|table|section|article|blockquote|pre|ul|ol)\b/gi;

function best(codes: FoundCode[]): FoundCode | undefined {
  return codes.find((code) => code.strength === 2) ?? codes[0];
}

function uniqueByUrl(links: ExtractedLink[]): ExtractedLink[] {
  const seen = new Map<string, ExtractedLink>();
  for (const link of links) {
    const known = seen.get(link.url);
    if (known === undefined) seen.set(link.url, link);
    else if (known.kind === 'other' && link.kind !== 'other') seen.set(link.url, { ...known, kind: link.kind });
  }
  return [...seen.values()];
}

/**
 * Codes and links from the text body and the visible text and anchors of the HTML body. A pure
 * function of its input (it runs at ingest, possibly on a worker thread), linear in the input size.
 */
export function extractArtefacts(text: string, html: string | null): Extracted {
  const plain = (text ?? '').slice(0, MAX_SCANNED_CHARS);
  // Line breaks in HTML source are spaces; block elements break lines where they open as well as where they close.
  const markup = html?.slice(0, MAX_SCANNED_CHARS).replace(/\s+/g, ' ').replace(BLOCK_OPENING, '<br>$&') ?? '';
  const found = new Map<string, FoundCode>();
  for (const code of [...findCodes(plain), ...(markup ? findCodes(htmlToText(markup)) : [])]) {
    const known = found.get(code.value);
    if (known === undefined) found.set(code.value, code);
    else if (code.strength > known.strength) known.strength = code.strength;
  }
  const codes = [...found.values()];
  const links = uniqueByUrl([...(markup ? htmlLinks(markup) : []), ...textLinks(plain)]);
  return {
    otp: best(codes.filter((code) => code.numeric))?.value ?? null,
    verificationCode: best(codes)?.value ?? null,
    links,
    codes: codes.map((code) => code.value),
    magicLink: links.find((link) => link.kind === 'verification' || link.kind === 'magic-login')?.url ?? null,
  };
}
