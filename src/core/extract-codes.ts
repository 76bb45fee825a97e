import { ScannedText } from './word-scan.js';
import { CODE_WORDS, CORE_CODE_WORD, NOT_CODE_AFTER_KEYWORD, NOT_CODE_WORDS, STRONG_LEAD, STRONG_TRAIL } from './extract-words.js';

/** A code found in visible text, with how sure we are that it is one. */
export interface FoundCode {
  value: string;
  numeric: boolean;
  /** 2: the keyword leads straight into it ("code: 482913", "482913 is your code", a line of its own under the keyword). 1: a keyword is near. */
  strength: 1 | 2;
}

const LOOK_BEHIND = 120;
const LOOK_AHEAD = 50;
const MAX_CANDIDATES = 500;
/** A non-code word further away than this does not label the number. */
const NEGATIVE_REACH = 30;
const isYear = (value: string) => /^(19|20)\d\d$/.test(value);

/** Digit runs joined by spaces, dashes or the punctuation of dates, times, prices and phones; judged as a whole. */
const NUMBER_CLUSTER = /[+(]?\d+(?:[ \u00a0]?[-.,/:()][ \u00a0]?\d+|[ \u00a0]\d+)*/g;
/**
 * ASCII letters and digits (what a code is typed with), optionally in dash-separated groups: X7K9-PQ2M, A1B2C3, 4hz9cm8r.
 * The lookahead skips tokens without a capital or a digit, which are never codes (tokenCandidate): most of
 * a text is such words, and a match object for each cost more than the rest of the token pass (issue 16).
 */
const TOKEN = /(?<![\p{L}\p{N}_@./\\#-])(?=[a-z-]*[A-Z0-9])[A-Za-z0-9]+(?:-[A-Za-z0-9]+){0,3}(?![\p{L}\p{N}_@]|[./\\-][\p{L}\p{N}])/gu;
const URLS = /\b(?:https?:\/\/|www\.)[^\s<>"]+/gi;
/**
 * An address match may only start where a run of non-space characters starts, and its local part is
 * bounded (RFC 5321: 64 octets): otherwise every position inside a long run without spaces (base64,
 * tracking ids) rescans the rest of the run, which made this one replace quadratic (0.64 → 0.04 ms
 * on 10 KB of base64).
 */
const URLS_AND_ADDRESSES = new RegExp(`${URLS.source}|(?<![^\\s<>"@])[^\\s<>"@]{1,64}@[^\\s<>"@]{1,253}\\.[a-z]{2,}`, 'gi');
const CURRENCY_BEFORE = /[$€£¥₹#№]\s?$|(?:usd|eur|gbp|chf|brl|mxn|r\$)\s?$/i;
const CURRENCY_AFTER = /^\s?(?:[$€£¥%‰]|usd|eur|gbp|chf|brl|mxn|euros?|dollars?|reais|pesos|kb|mb|gb|km|kg|mg|ml)(?![\p{L}])/iu;

interface Candidate {
  value: string;
  numeric: boolean;
  /** Letters only, or lower/mixed case ("4hz9cm8r", "HJJKIB"): words and ids look like this, so only taken when the context is strong. */
  needsStrongCue: boolean;
  start: number;
  end: number;
}

/** A digit cluster is a code when it is 4–10 digits, optionally in two groups of 3–4 or spaced single digits (HTML boxes). */
function numericCandidate(cluster: string): string | undefined {
  if (/^[+(]/.test(cluster) || /[.,/:()]/.test(cluster)) return undefined;
  const groups = cluster.split(/[ \u00a0-]/);
  const digits = groups.join('');
  if (digits.length < 4 || digits.length > 10) return undefined;
  if (groups.length === 1) return digits;
  if (groups.length === 2 && groups.every((g) => g.length >= 3 && g.length <= 4)) return digits;
  if (groups.length >= 4 && groups.length <= 8 && groups.every((g) => g.length === 1) && !cluster.includes('-')) return digits;
  return undefined;
}

/**
 * Letters, or letters and digits, that could be typed: 4–12 ASCII characters besides dashes, letter-only
 * codes in capitals (HJJKIB, HZCB-PLFG) and of 5 or more. Whether it is a code is left to the context
 * (strengthOf): a word or a model number only passes where a code would stand.
 */
/** Capitalised words that stand alone on buttons and banners, not codes. */
const BUTTON_WORDS = /^(?:VERIFY|CONFIRM|LOGIN|SIGNIN|SIGNUP|RESET|ACTIVATE|CONTINUE|SUBMIT|WELCOME|HELLO|IMPORTANT|NOTICE|WARNING|ACCEPT|UNLOCK|UPDATE|CLICK|OPEN|START|JOIN)$/;

function tokenCandidate(token: string, start: number): Candidate | undefined {
  // No capital and no digit is never a code (TOKEN's lookahead may have seen one past the token's end).
  if (!/[A-Z0-9]/.test(token)) return undefined;
  const bare = token.replace(/-/g, '');
  if (bare.length < 4 || bare.length > 12 || !/^[A-Za-z0-9]+$/.test(bare) || /^\d+$/.test(bare)) return undefined;
  if (/^[A-Z]{2,}-\d{1,3}$/.test(token) || /^(?:UTC|GMT|CES?T|[PE][SD]T)/.test(token)) return undefined;
  const digits = /\d/.test(bare);
  if (!digits && (bare.length < 5 || /[a-z]/.test(bare) || BUTTON_WORDS.test(bare))) return undefined;
  // Capitals and digits read as a code on their own; letters only, lower or mixed case, only where a code stands.
  // Letters then up to three digits (UCM743, XR500) is also how models are named.
  const plain = digits && !/[a-z]/.test(bare) && !/^[A-Z]+\d{1,3}$/.test(bare);
  return { value: token, numeric: false, needsStrongCue: !plain, start, end: start + token.length };
}

/** Global regexes are run with `exec` in a loop: `matchAll` copies the regex and wraps it in an iterator on every call. */
function candidates(text: string): Candidate[] {
  const found: Candidate[] = [];
  NUMBER_CLUSTER.lastIndex = 0;
  for (let match = NUMBER_CLUSTER.exec(text); match !== null; match = NUMBER_CLUSTER.exec(text)) {
    const start = match.index;
    const end = start + match[0].length;
    if (/[\p{L}\p{N}]/u.test(text[start - 1] ?? '') || /[\p{L}\p{N}]/u.test(text[end] ?? '')) continue;
    if (CURRENCY_BEFORE.test(text.slice(Math.max(0, start - 5), start)) || CURRENCY_AFTER.test(text.slice(end, end + 9))) continue;
    if (/[.,]\d/.test(text.slice(end, end + 2))) continue;
    const value = numericCandidate(match[0]);
    if (value !== undefined) found.push({ value, numeric: true, needsStrongCue: false, start, end });
    if (found.length >= MAX_CANDIDATES) break;
  }
  TOKEN.lastIndex = 0;
  for (let match = TOKEN.exec(text); match !== null; match = TOKEN.exec(text)) {
    const token = tokenCandidate(match[0], match.index);
    if (token !== undefined) found.push(token);
    if (found.length >= MAX_CANDIDATES) break;
  }
  return found.sort((a, b) => a.start - b.start);
}

/** A keyword found in the text: where it is, and what it says about a number near it. */
interface Cue {
  start: number;
  end: number;
  /** A code word (positive) or a word that makes a nearby number something else. */
  positive: boolean;
  /** A word that names a code outright (CORE_CODE_WORD), enough on its own within reach. */
  core: boolean;
}

/** "promo code", "zip code", "Gutscheincode": a code word that names something else. */
const NAMES_OTHER_CODE =
  /(?:promo|discount|coupon|voucher|gift|zip|postal|post|bar|referral|reference|referenz|référence|referencia|referência|booking|buchungs|order|bestell|invite|invitation|tracking|area|country|dial|qr|bar|source|rabatt|gutschein|aktions)\s*-?\s*$/u;

/** True when the code word at start..end names another kind of code ("promo code", "Postleitzahl", "code postal"). */
function namesOtherCode(text: string, start: number, end: number): boolean {
  return (
    NAMES_OTHER_CODE.test(text.slice(Math.max(0, start - 15), start).toLowerCase()) ||
    /^(?:promo|gutschein|rabatt|post|zip|bar|qr)/.test(text.slice(start, end).toLowerCase()) ||
    NOT_CODE_AFTER_KEYWORD.test(text.slice(end, end + 40).toLowerCase())
  );
}

/**
 * Every keyword of `text`, in order of position, from one pass of each word list over the whole text:
 * the per-candidate questions below are then lookups in a short window of this list, not regex scans.
 */
function cuesOf(text: string): Cue[] {
  const scanned = new ScannedText(text);
  const codeWords = CODE_WORDS.find(scanned);
  // Most mail has no code word at all: the other lists need not be read.
  if (codeWords.length === 0) return [];
  const cues: Cue[] = [];
  for (const { start, end } of codeWords) {
    const positive = !namesOtherCode(text, start, end);
    // Only where a code word starts can a word naming a code outright start: asked there, not over the whole text.
    cues.push({ start, end, positive, core: positive && CORE_CODE_WORD.matchesAt(text, start) });
  }
  for (const { start, end } of NOT_CODE_WORDS.find(scanned)) cues.push({ start, end, positive: false, core: false });
  return cues.sort((a, b) => a.start - b.start);
}

/** Index of the first cue starting at or after `at` (binary search). */
function firstCueFrom(cues: readonly Cue[], at: number): number {
  let low = 0;
  let high = cues.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (cues[middle]!.start < at) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** The cues lying wholly inside from..to. */
function cuesWithin(cues: readonly Cue[], from: number, to: number): Cue[] {
  const within: Cue[] = [];
  for (let i = firstCueFrom(cues, from); i < cues.length && cues[i]!.start < to; i++) if (cues[i]!.end <= to) within.push(cues[i]!);
  return within;
}

/** What the words of from..to say about a candidate right after it. */
interface Lead {
  /** End of the nearest code word, when no non-code word sits between it and the candidate. */
  nearestCodeWordEnd: number | undefined;
  anyCodeWord: boolean;
  /** A non-code word labels this very number ("Order number: 123456", "card ending 4821"). */
  blocked: boolean;
}

function leadOf(text: string, cues: readonly Cue[], from: number, to: number): Lead {
  let code = -1;
  let notCode = -1;
  for (const cue of cuesWithin(cues, from, to)) {
    if (cue.positive) code = Math.max(code, cue.end);
    else notCode = Math.max(notCode, cue.end);
  }
  const blocked = notCode >= code && notCode !== -1 && to - notCode < NEGATIVE_REACH && !/\d/.test(text.slice(notCode, to));
  return { nearestCodeWordEnd: code > notCode ? code : undefined, anyCodeWord: code !== -1, blocked };
}

/** How strongly the surrounding words say "this is a code" (0: not a code). */
function strengthOf(text: string, cues: readonly Cue[], candidate: Candidate): 0 | 1 | 2 {
  const lineStart = text.lastIndexOf('\n', candidate.start - 1) + 1;
  const lineEndAt = text.indexOf('\n', candidate.end);
  const lineEnd = lineEndAt === -1 ? text.length : lineEndAt;
  const beforeStart = Math.max(lineStart, candidate.start - LOOK_BEHIND);
  const afterEnd = Math.min(lineEnd, candidate.end + LOOK_AHEAD);

  const lead = leadOf(text, cues, beforeStart, candidate.start);
  if (lead.blocked) return 0;
  if (lead.nearestCodeWordEnd !== undefined && STRONG_LEAD.test(text.slice(lead.nearestCodeWordEnd, candidate.start).toLowerCase())) return isYear(candidate.value) ? 1 : 2;
  const after = cuesWithin(cues, candidate.end, afterEnd);
  if (after[0]?.positive === true && STRONG_TRAIL.test(text.slice(candidate.end, after[0].start).toLowerCase())) return isYear(candidate.value) ? 1 : 2;
  const rest = text.slice(lineStart, candidate.start) + text.slice(candidate.end, lineEnd);
  if (/^[\s\p{P}\p{S}]*$/u.test(rest) && !isYear(candidate.value)) {
    const above = previousLine(text, lineStart);
    if (above !== undefined) {
      const lead = leadOf(text, cues, above.start, above.end);
      if (lead.anyCodeWord && !lead.blocked) return 2;
    }
  }
  if (isYear(candidate.value)) return 0;
  if (cuesWithin(cues, beforeStart, candidate.start).some((cue) => cue.core) || after.some((cue) => cue.core)) return 1;
  return 0;
}

/** The nearest non-empty line above the line starting at `lineStart`, looked for within 400 characters. */
function previousLine(text: string, lineStart: number): { start: number; end: number } | undefined {
  const floor = Math.max(0, lineStart - 400);
  let end = lineStart - 1;
  while (end > floor) {
    const start = Math.max(floor, text.lastIndexOf('\n', end - 1) + 1);
    if (text.slice(start, end).trim().length > 0) return { start, end };
    end = start - 1;
  }
  return undefined;
}

/**
 * The text with URLs and addresses blanked out. Without an `@` only URLs can be there: the regex for them
 * alone spares the address alternative's scan of every word (issue 16).
 */
function withoutLinks(text: string): string {
  if (text.includes('@')) return text.replace(URLS_AND_ADDRESSES, ' ');
  return text.includes('://') || /www\./i.test(text) ? text.replace(URLS, ' ') : text;
}

/**
 * Every code in `text` (visible text: no markup), in reading order, each once. `setApart` holds the texts of
 * HTML elements that present something to copy (code, large or monospace type, bold): a candidate that is
 * one of them, in a mail that speaks of a code, is as sure as one introduced by "code:".
 */
export function findCodes(text: string, setApart: readonly string[], checkpoint: () => void): FoundCode[] {
  const unlinked = withoutLinks(text);
  const clean = unlinked.includes('\r') ? unlinked.replace(/\r\n?/g, '\n') : unlinked;
  const cues = cuesOf(clean);
  // Most mail has no code word at all: skip the per-number work.
  if (!cues.some((cue) => cue.positive)) return [];
  const emphasised = new Set(setApart);
  const found = new Map<string, FoundCode>();
  for (const candidate of candidates(clean)) {
    checkpoint();
    const context = strengthOf(clean, cues, candidate);
    const shown = emphasised.has(clean.slice(candidate.start, candidate.end)) && (context > 0 || /\d/.test(candidate.value));
    const strength = shown && !isYear(candidate.value) ? 2 : context;
    if (strength === 0 || (candidate.needsStrongCue && strength < 2)) continue;
    const existing = found.get(candidate.value);
    if (existing === undefined) found.set(candidate.value, { value: candidate.value, numeric: candidate.numeric, strength });
    else if (strength > existing.strength) existing.strength = strength;
  }
  return [...found.values()];
}
