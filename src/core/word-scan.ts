/**
 * Finds the matches of a long word-list regex without running it at every position of the text.
 * A regex of a hundred alternatives, tried at each of the text's positions, was the costliest part of
 * extraction (issue 16's profile). Every alternative starts with one of a few literal prefixes, derived
 * here from its source: the regex is then tried (sticky) only where a word starts with such a prefix, or,
 * for alternatives that match inside words (compounds, Chinese and Japanese), where `indexOf` finds one.
 * The matches are exactly those of `matchAll` over the whole text (test/unit/word-scan.test.ts).
 */
export interface WordMatch {
  start: number;
  end: number;
}

/** Alternatives of a word list: whole words (matched only where a word starts) and those matching anywhere. */
export interface WordListSource {
  words: readonly string[];
  inner: readonly string[];
}

/** Prefix length for alternatives at word starts; those matching anywhere use INNER_PREFIX for fewer false hits. */
const WORD_PREFIX = 4;
const INNER_PREFIX = 3;

/** The end of the bracket or group opening at `at` (its closing character's index). */
function closing(source: string, at: number): number {
  let depth = 0;
  for (let i = at; i < source.length; i++) {
    const char = source[i];
    if (char === '\\') i++;
    else if (char === '[' && source[at] === '[') return source.indexOf(']', i + 1);
    else if (char === '(') depth++;
    else if (char === ')' && --depth === 0) return i;
  }
  throw new Error(`unbalanced group in word pattern: ${source}`);
}

/** Top-level alternatives of a pattern source. */
function alternativesOf(source: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let from = 0;
  for (let i = 0; i < source.length; i++) {
    const char = source[i];
    if (char === '\\') i++;
    else if (char === '[') i = source.indexOf(']', i + 1);
    else if (char === '(') depth++;
    else if (char === ')') depth--;
    else if (char === '|' && depth === 0) {
      parts.push(source.slice(from, i));
      from = i + 1;
    }
  }
  return [...parts, source.slice(from)];
}

/** One atom's possible texts, up to `length` characters. */
function atomAt(source: string, at: number, length: number): { options: string[]; next: number } {
  const char = source[at]!;
  if (char === '\\') {
    const escaped = source[at + 1]!;
    if (/[pPdDwWbB]/.test(escaped)) throw new Error(`a word pattern may not start with a class (\\${escaped}): ${source}`);
    return { options: [escaped === 's' ? ' ' : escaped], next: at + 2 };
  }
  if (char === '[') {
    const end = closing(source, at);
    return { options: [...source.slice(at + 1, end).replace(/\\(.)/g, '$1')], next: end + 1 };
  }
  if (char === '(') {
    const end = closing(source, at);
    const body = source.slice(at, end + 1).replace(/^\(\?:/, '').slice(0, -1);
    if (body.startsWith('(?')) throw new Error(`lookarounds are not read in word patterns: ${source}`);
    return { options: alternativesOf(body).flatMap((alternative) => prefixesOf(alternative, length)), next: end + 1 };
  }
  if (char === '.') throw new Error(`a word pattern may not start with "." : ${source}`);
  return { options: [char], next: at + 1 };
}

/** Every text of up to `length` characters that a match of `alternative` can start with, lower-cased. */
export function prefixesOf(alternative: string, length: number): string[] {
  let prefixes = [''];
  // Atoms are read only until every prefix is long enough: what follows (\p{L}*, [- ]?) does not matter.
  for (let at = 0; at < alternative.length && prefixes.some((prefix) => prefix.length < length); ) {
    const { options, next } = atomAt(alternative, at, length);
    const quantifier = alternative[next] ?? '';
    if (quantifier === '{') throw new Error(`counted repeats are not read in word patterns: ${alternative}`);
    const repeated = quantifier === '*' || quantifier === '+' ? options.flatMap((a) => options.map((b) => a + b)).concat(options) : options;
    const optional = quantifier === '?' || quantifier === '*';
    prefixes = prefixes.flatMap((prefix) => {
      if (prefix.length >= length) return [prefix];
      const extended = repeated.map((option) => (prefix + option).slice(0, length));
      return optional ? [...extended, prefix] : extended;
    });
    at = '?*+'.includes(quantifier) && quantifier !== '' ? next + 1 : next;
  }
  return [...new Set(prefixes.map((prefix) => prefix.toLowerCase()))];
}

const WORD_CODE_POINT = /^[\p{L}\p{N}]$/u;
/** Whether each code point of the Basic Multilingual Plane is a letter or digit, learnt as met: 0 not yet known, 1 yes, 2 no. */
const BMP_WORD = new Uint8Array(0x10000);
for (let code = 0; code < 128; code++) BMP_WORD[code] = (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) ? 1 : 2;

/** Whether a code point (a lone surrogate included) is a letter or digit: \p{L} or \p{N}. */
export function isWordCodePoint(codePoint: number): boolean {
  const known = codePoint <= 0xffff ? (BMP_WORD[codePoint] as number) : 0;
  if (known !== 0) return known === 1;
  const word = WORD_CODE_POINT.test(String.fromCodePoint(codePoint));
  if (codePoint <= 0xffff) BMP_WORD[codePoint] = word ? 1 : 2;
  return word;
}

/** Whether a code unit is a letter or digit (half of a surrogate pair is neither). */
export function isWordUnit(unit: number): boolean {
  const known = BMP_WORD[unit] as number;
  return known === 0 ? isWordCodePoint(unit) : known === 1;
}

/** What codeUnitsOf needs of Node's Buffer. */
interface Utf16Writer {
  write(text: string, offset: number, encoding: 'utf16le'): number;
}

/** Node's Buffer, absent in the dashboard's browser bundle, which runs extraction too. */
const NODE_BUFFER = (globalThis as { Buffer?: { from(buffer: ArrayBufferLike): Utf16Writer } }).Buffer;
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** A native UTF-16 writer over the array's memory where Node provides one in the array's byte order. */
const nativeWriterOf = (units: Uint16Array) => (NODE_BUFFER !== undefined && LITTLE_ENDIAN ? NODE_BUFFER.from(units.buffer) : undefined);

/** Texts up to this many code units are copied into one reused array; longer ones get their own, not kept. */
const SCRATCH_UNITS = 1 << 16;
const scratch = new Uint16Array(SCRATCH_UNITS);
const scratchWriter = nativeWriterOf(scratch);

/**
 * The text's UTF-16 code units, lone surrogates as they are: in Node one native copy, after which a
 * loop over the units is about twice as fast as one calling `charCodeAt` per unit (D70); elsewhere
 * a copy a unit at a time. The array is reused: it holds this text only until the next call.
 */
export function codeUnitsOf(text: string): Uint16Array {
  const own = text.length > SCRATCH_UNITS;
  const units = own ? new Uint16Array(text.length) : scratch;
  const writer = own ? nativeWriterOf(units) : scratchWriter;
  if (writer !== undefined) writer.write(text, 0, 'utf16le');
  else for (let at = 0; at < text.length; at++) units[at] = text.charCodeAt(at);
  return units.subarray(0, text.length);
}

/** Where each run of letters and digits starts (into a local array: pushing onto a field was half the loop's time). */
function wordStartsOf(units: Uint16Array): number[] {
  const starts: number[] = [];
  let previousIsWord = false;
  for (let at = 0; at < units.length; at++) {
    const isWord = isWordUnit(units[at] as number);
    if (isWord && !previousIsWord) starts.push(at);
    previousIsWord = isWord;
  }
  return starts;
}

/** The characters at `at` and after it as one number (a key of one character has 0 for the second). */
const head = (text: string, at: number) => text.charCodeAt(at) * 65536 + (at + 1 < text.length ? text.charCodeAt(at + 1) : 0);

/** A head's slot in WordList's filter of heads: every pair of ASCII characters has one of its own; others may share one. */
const headSlot = (head: number) => ((head >>> 9) + head) & 0xffff;

/** A text read once for every word list asked about it: lower-cased, with the positions where words start. */
export class ScannedText {
  readonly lower: string;
  /** False when lower-casing changed the length (a dotted capital I): positions would not line up. */
  readonly aligned: boolean;
  readonly wordStarts: number[];

  constructor(readonly text: string) {
    this.lower = text.toLowerCase();
    this.aligned = this.lower.length === text.length;
    this.wordStarts = wordStartsOf(codeUnitsOf(text));
  }
}

/** A word-list regex with the prefixes that say where it can match. */
export class WordList {
  /** The list as one regex (flags giu), the same one `find` runs, for matching short texts directly. */
  readonly pattern: RegExp;
  private readonly sticky: RegExp;
  /**
   * Prefixes of the whole-word alternatives (shorter only for alternatives that short), by their first two
   * characters as one number: most words are ruled out by one lookup, the rest compared in place, without slicing.
   */
  private readonly wordKeys = new Map<number, string[]>();
  /** The slots of the heads of wordKeys: a word whose head has no slot here is ruled out without a lookup in the map. */
  private readonly headSlots = new Uint8Array(65536);
  private readonly innerKeys: string[];

  constructor(source: string, alternatives: WordListSource) {
    this.pattern = new RegExp(source, 'giu');
    this.sticky = new RegExp(source, 'iuy');
    for (const key of alternatives.words.flatMap((alternative) => prefixesOf(alternative, WORD_PREFIX))) {
      if (key === '') throw new Error(`a word pattern may not match the empty text: ${source}`);
      const keys = this.wordKeys.get(head(key, 0)) ?? [];
      if (!keys.includes(key)) this.wordKeys.set(head(key, 0), [...keys, key]);
      this.headSlots[headSlot(head(key, 0))] = 1;
    }
    this.innerKeys = [...new Set(alternatives.inner.flatMap((alternative) => prefixesOf(alternative, INNER_PREFIX)))];
    if (this.innerKeys.includes('')) throw new Error(`a word pattern may not match the empty text: ${source}`);
  }

  private startsAKeyword(lower: string, at: number): boolean {
    const twoCharacters = head(lower, at);
    const oneCharacter = lower.charCodeAt(at) * 65536;
    return this.startsWithAny(twoCharacters, lower, at) || (oneCharacter !== twoCharacters && this.startsWithAny(oneCharacter, lower, at));
  }

  /** Whether the text at `at` starts with one of the word keys of this head. */
  private startsWithAny(head: number, lower: string, at: number): boolean {
    if (this.headSlots[headSlot(head)] === 0) return false;
    const keys = this.wordKeys.get(head);
    if (keys === undefined) return false;
    for (const key of keys) if (lower.startsWith(key, at)) return true;
    return false;
  }

  /** True when a match of `pattern` starts at `start`. */
  matchesAt(text: string, start: number): boolean {
    this.sticky.lastIndex = start;
    return this.sticky.test(text);
  }

  /** The matches of `pattern` in the text, in order, as `matchAll` finds them. */
  find(scanned: ScannedText): WordMatch[] {
    const { text, lower } = scanned;
    if (!scanned.aligned) return [...text.matchAll(this.pattern)].map((match) => ({ start: match.index, end: match.index + match[0].length }));
    const starts = scanned.wordStarts.filter((at) => this.startsAKeyword(lower, at));
    for (const key of this.innerKeys) for (let at = lower.indexOf(key); at !== -1; at = lower.indexOf(key, at + 1)) starts.push(at);
    starts.sort((a, b) => a - b);
    const matches: WordMatch[] = [];
    let reached = 0;
    for (const start of starts) {
      if (start < reached) continue;
      this.sticky.lastIndex = start;
      const match = this.sticky.exec(text);
      if (match === null || match[0].length === 0) continue;
      reached = start + match[0].length;
      matches.push({ start, end: reached });
    }
    return matches;
  }
}
