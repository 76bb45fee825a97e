import { InvalidInputError } from './errors.js';
import { codeUnitsOf, isWordCodePoint, isWordUnit } from './word-scan.js';

/**
 * The search language of `GET /emails?q=` (docs/search.md), after Mailpit and Gmail: free words match
 * subject, sender, recipients and body text; `from:`, `to:`, `subject:` narrow a word to one field;
 * `is:read`, `is:unread`, `has:attachment`, `before:` and `after:` are filters; "quoted phrases" match
 * adjacent words; `-term` excludes. Terms are ANDed. Words are runs of letters and digits, compared
 * case-insensitively and whole, so `news@acme.example` is the phrase "news acme example".
 */
export type SearchField = 'text' | 'from' | 'to' | 'subject';

export interface SearchTerm {
  field: SearchField;
  /** Lower-cased words that must appear adjacent and in this order (one word for a plain term). */
  words: string[];
  negated: boolean;
}

export interface SearchQuery {
  terms: SearchTerm[];
  read?: boolean;
  hasAttachment?: boolean;
  /** ISO instants: received at or after `after`, strictly before `before`. */
  after?: string;
  before?: string;
}

export const SEARCH_QUERY_MAX_LENGTH = 1000;
export const SEARCH_MAX_TERMS = 20;

const FIELD_OPERATORS: Record<string, SearchField> = { from: 'from', to: 'to', subject: 'subject' };
const FILTER_OPERATORS = new Set(['is', 'has', 'before', 'after']);
const OPERATOR = /^([a-z]+):(.*)$/is;
const DATE = /^(\d{4})[-/](\d{2})[-/](\d{2})$/;

const invalid = (message: string) => new InvalidInputError('INVALID_SEARCH_QUERY', message, { field: 'q' });

/** Code units of the letter or digit at `at`: 1, 2 (a surrogate pair), or 0 when there is none. */
function wordUnitsAt(units: Uint16Array, at: number): number {
  const unit = units[at] as number;
  if (unit < 0xd800 || unit > 0xdbff) return isWordUnit(unit) ? 1 : 0;
  // A high surrogate without its low half is a lone surrogate: no letter.
  const low = at + 1 < units.length ? (units[at + 1] as number) : 0;
  if (low < 0xdc00 || low > 0xdfff) return 0;
  return isWordCodePoint((unit - 0xd800) * 0x400 + (low - 0xdc00) + 0x10000) ? 2 : 0;
}

/**
 * The words of a text as both full-text indexes see them: runs of Unicode letters and digits (code
 * points, a lone surrogate being neither), lower-cased. The same words as
 * `text.toLowerCase().split(/[^\p{L}\p{N}]+/u)` without the empty ones, read a code unit at a time
 * from a typed array: on 10 KB of prose that split was ~70% of a PostgreSQL search vector's cost (D69,
 * D70). A separator is passed one code unit at a time: the second half of a pair that is no letter is
 * no letter either.
 */
export function searchWords(text: string): string[] {
  const lower = text.toLowerCase();
  const units = codeUnitsOf(lower);
  const words: string[] = [];
  let at = 0;
  while (at < units.length) {
    let size = wordUnitsAt(units, at);
    if (size === 0) {
      at += 1;
      continue;
    }
    const start = at;
    do at += size;
    while (at < units.length && (size = wordUnitsAt(units, at)) !== 0);
    words.push(lower.slice(start, at));
  }
  return words;
}

interface RawTerm {
  negated: boolean;
  operator: string | undefined;
  value: string;
  quoted: boolean;
}

/** Splits the query into terms, honouring quotes; an unclosed quote is an error, not a guess. */
function lex(q: string): RawTerm[] {
  const terms: RawTerm[] = [];
  let i = 0;
  while (i < q.length) {
    if (/\s/.test(q[i] as string)) {
      i++;
      continue;
    }
    const negated = q[i] === '-' && i + 1 < q.length && !/\s/.test(q[i + 1] as string);
    if (negated) i++;
    let bare = '';
    while (i < q.length && !/\s/.test(q[i] as string) && q[i] !== '"') bare += q[i++];
    const operator = OPERATOR.exec(bare);
    const prefix = operator !== null && (operator[1] as string).toLowerCase();
    const known = prefix !== false && (prefix in FIELD_OPERATORS || FILTER_OPERATORS.has(prefix));
    if (q[i] === '"' && (bare === '' || (known && operator?.[2] === ''))) {
      const close = q.indexOf('"', i + 1);
      if (close < 0) throw invalid('The search has an opening quote (") without a closing one');
      terms.push({ negated, operator: known ? prefix : undefined, value: q.slice(i + 1, close), quoted: true });
      i = close + 1;
      continue;
    }
    if (q[i] === '"') throw invalid('A quote (") must start a term or follow an operator such as from:');
    terms.push({ negated, operator: known ? prefix : undefined, value: known ? (operator?.[2] as string) : bare, quoted: false });
  }
  return terms;
}

function parseDate(operator: string, value: string): string {
  const match = DATE.exec(value);
  const iso = match && `${match[1]}-${match[2]}-${match[3]}`;
  if (iso === null || Number.isNaN(Date.parse(iso)) || new Date(iso).toISOString().slice(0, 10) !== iso) {
    throw invalid(`${operator}: takes a date as YYYY-MM-DD (or YYYY/MM/DD), not "${value}"`);
  }
  return `${iso}T00:00:00.000Z`;
}

function setOnce<K extends 'read' | 'hasAttachment' | 'after' | 'before'>(query: SearchQuery, key: K, value: SearchQuery[K], label: string): void {
  if (query[key] !== undefined && query[key] !== value) throw invalid(`The search says ${label} twice with different values`);
  query[key] = value;
}

function applyFilter(query: SearchQuery, term: RawTerm): void {
  const op = term.operator as string;
  const value = term.value.toLowerCase();
  if (op === 'is') {
    if (value !== 'read' && value !== 'unread') throw invalid(`is: takes read or unread, not "${term.value}"`);
    setOnce(query, 'read', (value === 'read') !== term.negated, 'is:read/is:unread');
  } else if (op === 'has') {
    if (value !== 'attachment' && value !== 'attachments') throw invalid(`has: takes attachment, not "${term.value}"`);
    setOnce(query, 'hasAttachment', !term.negated, 'has:attachment');
  } else {
    // -before:D is after:D and the other way round.
    const bound = (op === 'before') !== term.negated ? 'before' : 'after';
    setOnce(query, bound, parseDate(op, term.value), `${bound}:`);
  }
}

/** Parses `q`; every mistake is an INVALID_SEARCH_QUERY error naming it, never a silently wider search. */
export function parseSearchQuery(q: string): SearchQuery {
  if (q.length > SEARCH_QUERY_MAX_LENGTH) throw invalid(`The search is longer than ${SEARCH_QUERY_MAX_LENGTH} characters`);
  const query: SearchQuery = { terms: [] };
  const raw = lex(q);
  if (raw.length > SEARCH_MAX_TERMS) throw invalid(`The search has more than ${SEARCH_MAX_TERMS} terms`);
  for (const term of raw) {
    if (term.operator !== undefined && FILTER_OPERATORS.has(term.operator)) {
      applyFilter(query, term);
      continue;
    }
    const words = searchWords(term.value);
    const shown = term.operator === undefined ? term.value : `${term.operator}:${term.value}`;
    if (words.length === 0) throw invalid(`The search term "${shown}" has no letters or digits to look for`);
    query.terms.push({ field: term.operator === undefined ? 'text' : (FIELD_OPERATORS[term.operator] as SearchField), words, negated: term.negated });
  }
  return query;
}
