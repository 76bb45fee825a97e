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
/** ASCII letters and digits (what a code is typed with), optionally in dash-separated groups: X7K9-PQ2M, A1B2C3, 4hz9cm8r. */
const TOKEN = /(?<![\p{L}\p{N}_@./\\#-])[A-Za-z0-9]+(?:-[A-Za-z0-9]+){0,3}(?![\p{L}\p{N}_@]|[./\\-][\p{L}\p{N}])/gu;
/**
 * An address match may only start where a run of non-space characters starts, and its local part is
 * bounded (RFC 5321: 64 octets): otherwise every position inside a long run without spaces (base64,
 * tracking ids) rescans the rest of the run, which made this one replace quadratic (0.64 → 0.04 ms
 * on 10 KB of base64).
 */
const URLS_AND_ADDRESSES = /\b(?:https?:\/\/|www\.)[^\s<>"]+|(?<![^\s<>"@])[^\s<>"@]{1,64}@[^\s<>"@]{1,253}\.[a-z]{2,}/gi;
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

function tokenCandidate(token: string): Omit<Candidate, 'start' | 'end'> | undefined {
  // Most tokens are lower-case words: no capital and no digit is never a code.
  if (!/[A-Z0-9]/.test(token)) return undefined;
  const bare = token.replace(/-/g, '');
  if (bare.length < 4 || bare.length > 12 || !/^[A-Za-z0-9]+$/.test(bare) || /^\d+$/.test(bare)) return undefined;
  if (/^[A-Z]{2,}-\d{1,3}$/.test(token) || /^(?:UTC|GMT|CES?T|[PE][SD]T)/.test(token)) return undefined;
  const digits = /\d/.test(bare);
  if (!digits && (bare.length < 5 || /[a-z]/.test(bare) || BUTTON_WORDS.test(bare))) return undefined;
  // Capitals and digits read as a code on their own; letters only, lower or mixed case, only where a code stands.
  // Letters then up to three digits (UCM743, XR500) is also how models are named.
  const plain = digits && !/[a-z]/.test(bare) && !/^[A-Z]+\d{1,3}$/.test(bare);
  return { value: token, numeric: false, needsStrongCue: !plain };
}

function candidates(text: string): Candidate[] {
  const found: Candidate[] = [];
  for (const match of text.matchAll(NUMBER_CLUSTER)) {
    const start = match.index;
    const end = start + match[0].length;
    if (/[\p{L}\p{N}]/u.test(text[start - 1] ?? '') || /[\p{L}\p{N}]/u.test(text[end] ?? '')) continue;
    if (CURRENCY_BEFORE.test(text.slice(Math.max(0, start - 5), start)) || CURRENCY_AFTER.test(text.slice(end, end + 9))) continue;
    if (/[.,]\d/.test(text.slice(end, end + 2))) continue;
    const value = numericCandidate(match[0]);
    if (value !== undefined) found.push({ value, numeric: true, needsStrongCue: false, start, end });
    if (found.length >= MAX_CANDIDATES) break;
  }
  for (const match of text.matchAll(TOKEN)) {
    const token = tokenCandidate(match[0]);
    if (token !== undefined) found.push({ ...token, start: match.index, end: match.index + match[0].length });
    if (found.length >= MAX_CANDIDATES) break;
  }
  return found.sort((a, b) => a.start - b.start);
}

/** What the words before a candidate say about it. */
interface Lead {
  /** End of the nearest code word, when no non-code word sits between it and the candidate. */
  nearestCodeWordEnd: number | undefined;
  anyCodeWord: boolean;
  /** A non-code word labels this very number ("Order number: 123456", "card ending 4821"). */
  blocked: boolean;
}

/** "promo code", "zip code", "Gutscheincode": a code word that names something else. */
const NAMES_OTHER_CODE =
  /(?:promo|discount|coupon|voucher|gift|zip|postal|post|bar|referral|reference|referenz|référence|referencia|referência|booking|buchungs|order|bestell|invite|invitation|tracking|area|country|dial|qr|bar|source|rabatt|gutschein|aktions)\s*-?\s*$/u;

/** True when this code-word match names another kind of code ("promo code", "Postleitzahl", "code postal"). */
function namesOtherCode(text: string, match: RegExpMatchArray): boolean {
  const index = match.index ?? 0;
  return (
    NAMES_OTHER_CODE.test(text.slice(Math.max(0, index - 15), index)) ||
    /^(?:promo|gutschein|rabatt|post|zip|bar|qr)/.test(match[0]) ||
    NOT_CODE_AFTER_KEYWORD.test(text.slice(index + match[0].length))
  );
}

/** Where the last code word and the last non-code word of `text` end (-1: none), in one pass over each word list. */
function lastWordEnds(text: string): { code: number; notCode: number } {
  let code = -1;
  let notCode = -1;
  for (const match of text.matchAll(CODE_WORDS)) {
    const end = match.index + match[0].length;
    if (namesOtherCode(text, match)) notCode = Math.max(notCode, end);
    else code = Math.max(code, end);
  }
  for (const match of text.matchAll(NOT_CODE_WORDS)) notCode = Math.max(notCode, match.index + match[0].length);
  return { code, notCode };
}

const hasCoreCodeWord = (text: string): boolean => [...text.matchAll(CORE_CODE_WORD)].some((match) => !namesOtherCode(text, match));

function leadOf(before: string): Lead {
  const { code, notCode } = lastWordEnds(before);
  const blocked = notCode >= code && notCode !== -1 && before.length - notCode < NEGATIVE_REACH && !/\d/.test(before.slice(notCode));
  return { nearestCodeWordEnd: code > notCode ? code : undefined, anyCodeWord: code !== -1, blocked };
}

/** Where the first keyword after the code starts, and whether it is a code word. */
function firstWordAfter(after: string): { index: number; positive: boolean } | undefined {
  const positive = after.search(CODE_WORDS);
  const negative = after.search(NOT_CODE_WORDS);
  if (positive === -1 && negative === -1) return undefined;
  if (negative === -1 || (positive !== -1 && positive < negative)) return { index: positive, positive: true };
  return { index: negative, positive: false };
}

/** How strongly the surrounding words say "this is a code" (0: not a code). */
function strengthOf(text: string, candidate: Candidate): 0 | 1 | 2 {
  const lineStart = text.lastIndexOf('\n', candidate.start - 1) + 1;
  const lineEndAt = text.indexOf('\n', candidate.end);
  const lineEnd = lineEndAt === -1 ? text.length : lineEndAt;
  const before = text.slice(Math.max(lineStart, candidate.start - LOOK_BEHIND), candidate.start).toLowerCase();
  const after = text.slice(candidate.end, Math.min(lineEnd, candidate.end + LOOK_AHEAD)).toLowerCase();

  const lead = leadOf(before);
  if (lead.blocked) return 0;
  if (lead.nearestCodeWordEnd !== undefined && STRONG_LEAD.test(before.slice(lead.nearestCodeWordEnd))) return isYear(candidate.value) ? 1 : 2;
  const trail = firstWordAfter(after);
  if (trail?.positive === true && STRONG_TRAIL.test(after.slice(0, trail.index))) return isYear(candidate.value) ? 1 : 2;
  const rest = text.slice(lineStart, candidate.start) + text.slice(candidate.end, lineEnd);
  if (/^[\s\p{P}\p{S}]*$/u.test(rest) && !isYear(candidate.value)) {
    const above = leadOf(previousLines(text, lineStart, 1).toLowerCase());
    if (above.anyCodeWord && !above.blocked) return 2;
  }
  if (isYear(candidate.value)) return 0;
  if (hasCoreCodeWord(before) || hasCoreCodeWord(after)) return 1;
  return 0;
}

/** Up to `count` non-empty lines above the line starting at `lineStart`. */
function previousLines(text: string, lineStart: number, count: number): string {
  const lines = text.slice(Math.max(0, lineStart - 400), Math.max(0, lineStart - 1)).split('\n');
  return lines
    .filter((line) => line.trim().length > 0)
    .slice(-count)
    .join('\n');
}

/**
 * Every code in `text` (visible text: no markup), in reading order, each once. `setApart` holds the texts of
 * HTML elements that present something to copy (code, large or monospace type, bold): a candidate that is
 * one of them, in a mail that speaks of a code, is as sure as one introduced by "code:".
 */
export function findCodes(text: string, setApart: readonly string[], checkpoint: () => void): FoundCode[] {
  const linked = text.includes('@') || text.includes('://') || /www\./i.test(text);
  const clean = (linked ? text.replace(URLS_AND_ADDRESSES, ' ') : text).replace(/\r\n?/g, '\n');
  // Most mail has no code word at all: skip the per-number work.
  if (clean.search(CODE_WORDS) === -1) return [];
  const emphasised = new Set(setApart);
  const found = new Map<string, FoundCode>();
  for (const candidate of candidates(clean)) {
    checkpoint();
    const context = strengthOf(clean, candidate);
    const shown = emphasised.has(clean.slice(candidate.start, candidate.end)) && (context > 0 || /\d/.test(candidate.value));
    const strength = shown && !isYear(candidate.value) ? 2 : context;
    if (strength === 0 || (candidate.needsStrongCue && strength < 2)) continue;
    const existing = found.get(candidate.value);
    if (existing === undefined) found.set(candidate.value, { value: candidate.value, numeric: candidate.numeric, strength });
    else if (strength > existing.strength) existing.strength = strength;
  }
  return [...found.values()];
}
