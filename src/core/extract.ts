import { findCodes, type FoundCode } from './extract-codes.js';
import { htmlLinks, textLinks } from './extract-links.js';
import { readHtml, tidyText } from './html-text.js';

/** What a link is for, judged from its anchor text, its URL and the sentence around it. */
export const LINK_KINDS = [
  'verification',
  'magic-login',
  'password-reset',
  'email-change',
  'account-unlock',
  'set-password',
  'invitation',
  'account-update',
  'unsubscribe',
  'other',
] as const;
export type LinkKind = (typeof LINK_KINDS)[number];

export interface ExtractedLink {
  url: string;
  text: string;
  kind: LinkKind;
}

/** Auth artefacts found in a message (spec 2.6; docs/inboxes.md describes the rules). */
export interface Extracted {
  /** The code a person would type: digits, letters or both, as confidently found (docs/inboxes.md). */
  otp: string | null;
  /** The most likely code of any form, also when only a weaker cue points at it. */
  verificationCode: string | null;
  links: ExtractedLink[];
  /** Every code candidate, most confident first. */
  codes: string[];
  /** The first verification or magic-login link: the one a tester most likely wants to open. */
  magicLink: string | null;
}

/** What extraction may spend on one message (docs/inboxes.md): input beyond maxChars is not read; past the budget it gives up. */
export interface ExtractionLimits {
  /** Characters of the text body and of the HTML body read, each. */
  maxChars: number;
  budgetMs: number;
}

export const DEFAULT_EXTRACTION_LIMITS: ExtractionLimits = { maxChars: 512 * 1024, budgetMs: 500 };

/** Why a message has no `extracted`: its analysis ran out of time (the mail is stored all the same). */
export type ExtractionSkipped = 'time-budget';

/** Extraction's outcome as stored and served: `extracted` is null exactly when `extractionSkipped` says why. */
export interface Extraction {
  extracted: Extracted | null;
  extractionSkipped: ExtractionSkipped | null;
}

class BudgetExceeded extends Error {}

/** A subject is one line; longer ones are not a sender's subject line but an attack on the scanner. */
const MAX_SUBJECT = 500;

/** Throws BudgetExceeded once the deadline has passed; called between steps and inside per-candidate loops. */
export type Checkpoint = () => void;

function deadline(budgetMs: number): Checkpoint {
  const end = performance.now() + budgetMs;
  return () => {
    if (performance.now() > end) throw new BudgetExceeded();
  };
}

/** Most confident first; reading order among equals (the sort is stable). */
const byConfidence = (codes: FoundCode[]) => [...codes].sort((a, b) => b.strength - a.strength);

function uniqueByUrl(links: ExtractedLink[]): ExtractedLink[] {
  const seen = new Map<string, ExtractedLink>();
  for (const link of links) {
    const known = seen.get(link.url);
    if (known === undefined) seen.set(link.url, link);
    else if (known.kind === 'other' && link.kind !== 'other') seen.set(link.url, { ...known, kind: link.kind });
  }
  return [...seen.values()];
}

function artefacts(text: string, html: string | null, subject: string, limits: ExtractionLimits, checkpoint: Checkpoint): Extracted {
  const plain = (text ?? '').slice(0, limits.maxChars);
  const reading = html ? readHtml(html.slice(0, limits.maxChars), { sourceBreaks: false }) : undefined;
  checkpoint();
  const found = new Map<string, FoundCode>();
  // The parts of multipart/alternative say the same thing: the HTML part (which also shows what is set
  // apart) is read, the text part only when there is no HTML or the HTML has no code or no link.
  const htmlCodes = reading ? findCodes(tidyText(reading.text), reading.emphasised, checkpoint) : [];
  const sources = [htmlCodes, htmlCodes.length > 0 ? [] : findCodes(plain, [], checkpoint), findCodes(subject.slice(0, MAX_SUBJECT), [], checkpoint)];
  for (const code of sources.flat()) {
    const known = found.get(code.value);
    if (known === undefined) found.set(code.value, code);
    else if (code.strength > known.strength) known.strength = code.strength;
  }
  const codes = byConfidence([...found.values()]);
  checkpoint();
  const anchors = reading ? htmlLinks(reading, checkpoint) : [];
  const links = uniqueByUrl([...anchors, ...(anchors.some((link) => link.kind !== 'other') ? [] : textLinks(plain, checkpoint))]);
  const confident = codes.find((code) => code.strength === 2) ?? codes.find((code) => code.numeric);
  return {
    otp: confident?.value ?? null,
    verificationCode: codes[0]?.value ?? null,
    links,
    codes: codes.map((code) => code.value),
    magicLink: links.find((link) => link.kind === 'verification' || link.kind === 'magic-login')?.url ?? null,
  };
}

/**
 * Codes and links from the text body and the visible text and anchors of the HTML body. A pure
 * function of its input (it runs at ingest, possibly on a worker thread), linear in the input size.
 */
export function extractArtefacts(text: string, html: string | null, subject = '', limits: ExtractionLimits = DEFAULT_EXTRACTION_LIMITS): Extracted {
  return artefacts(text, html, subject, limits, () => {});
}

/** extractArtefacts within a time budget: when it runs out, no artefacts and the reason. */
export function extractWithinBudget(text: string, html: string | null, subject: string, limits: ExtractionLimits): Extraction {
  try {
    return { extracted: artefacts(text, html, subject, limits, deadline(limits.budgetMs)), extractionSkipped: null };
  } catch (error) {
    if (error instanceof BudgetExceeded) return { extracted: null, extractionSkipped: 'time-budget' };
    throw error;
  }
}

/**
 * Compiles the extractor's regexes and warms its code once, at startup: the first message must not pay
 * for that in its time budget (on a busy machine that alone can exceed it).
 */
export function warmUpExtraction(): void {
  const html = '<p>Your verification code is <b>482913</b>. Код: 7391. 验证码为 605218.</p><p><a href="https://example.com/verify?token=abcdef123456">Verify</a></p>';
  extractArtefacts('Your code is HZCB-PLFG\nhttps://example.com/reset?token=abcdef123456', html, '482913 is your code');
}
