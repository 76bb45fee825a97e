import { recipientsSearchText, type HeaderRecipients } from './email-recipients.js';
import { searchWords } from './search-query.js';

/**
 * The PostgreSQL tsvector of an email (docs/decisions.md D53), as text for a `tsvector` column: what
 * `setweight(to_tsvector('simple', …), W) || …` over subject (A), sender (B), recipients (C) and body
 * (D) gave while the column was generated (migration 0020), but with the query side's words
 * (searchWords), so what a search looks for is by construction what was indexed: the search passes
 * its words as a tsquery literal too (email-search.ts), and PostgreSQL's parser, whose word characters
 * depend on the server's C library and locale, no longer splits either side. PostgreSQL's text
 * parser cost more server CPU per email than all of Mailroom's work on it (issue 15); this costs
 * Node a fraction of that. The limits are PostgreSQL's own (tsvector docs, src/include/tsearch/ts_type.h).
 */
export type SearchWeight = 'A' | 'B' | 'C' | 'D';

export interface SearchVectorField {
  text: string;
  weight: SearchWeight;
}

/** Positions count from 1 and stop at this one (MAXENTRYPOS - 1): later words share it. */
const MAX_POSITION = 16383;
/** to_tsvector keeps this many positions of a lexeme (MAXNUMPOS - 1); `||` lets the merged list reach MAXNUMPOS. */
const MAX_FIELD_POSITIONS = 255;
const MAX_POSITIONS = 256;
/** Longer words are left out by to_tsvector ("word is too long to be indexed") without taking a position. */
const MAX_LEXEME_BYTES = 2047;
/** Below this many UTF-16 units a word cannot exceed MAX_LEXEME_BYTES (3 UTF-8 bytes per unit at most). */
const SURELY_SHORT = Math.floor(MAX_LEXEME_BYTES / 3);

/** Whether PostgreSQL can hold the word as a lexeme; longer ones are in no tsvector, so a search leaves them out as to_tsquery did. */
export const indexableWord = (word: string) => word.length <= SURELY_SHORT || Buffer.byteLength(word) <= MAX_LEXEME_BYTES;

/** A tsvector or tsquery literal quotes each lexeme; searchWords gives letters and digits only, escaped all the same. */
export const quotedLexeme = (word: string) => (/[\\']/.test(word) ? `'${word.replace(/\\/g, '\\\\').replace(/'/g, "''")}'` : `'${word}'`);

/** The first `count` characters (code points, as PostgreSQL's left() counts them) of a text. */
export function firstCharacters(text: string, count: number): string {
  if (text.length <= count) return text;
  let end = 0;
  for (let n = 0; n < count && end < text.length; n++) end += (text.codePointAt(end) as number) > 0xffff ? 2 : 1;
  return text.slice(0, end);
}

/** A lexeme's positions so far: in the whole vector (`||`) and in the field being added (to_tsvector). */
interface Entry {
  positions: string;
  count: number;
  last: number;
  field: number;
  fieldCount: number;
  fieldLast: number;
}

/**
 * Adds one field as `vector || setweight(to_tsvector(field), weight)`: to_tsvector keeps a lexeme's
 * ascending positions once each, at most MAX_FIELD_POSITIONS; `||` shifts them by the vector's largest
 * position, clamps them, and stops a lexeme at MAX_POSITIONS or at the last position (tsvector_concat).
 * Returns the vector's new largest position.
 */
function addField(vector: Map<string, Entry>, field: SearchVectorField, index: number, shift: number): number {
  let largest = shift;
  let position = 0;
  for (const word of searchWords(field.text)) {
    if (!indexableWord(word)) continue;
    position = Math.min(position + 1, MAX_POSITION);
    let entry = vector.get(word);
    if (entry === undefined) vector.set(word, (entry = { positions: '', count: 0, last: 0, field: index, fieldCount: 0, fieldLast: 0 }));
    if (entry.field !== index) Object.assign(entry, { field: index, fieldCount: 0, fieldLast: 0 });
    if (entry.fieldCount >= MAX_FIELD_POSITIONS || entry.fieldLast === position) continue;
    entry.fieldCount++;
    entry.fieldLast = position;
    if (entry.count >= MAX_POSITIONS || entry.last === MAX_POSITION) continue;
    const shifted = Math.min(position + shift, MAX_POSITION);
    entry.positions += `${entry.count === 0 ? '' : ','}${shifted}${field.weight}`;
    entry.count++;
    entry.last = shifted;
    largest = Math.max(largest, shifted);
  }
  return largest;
}

/** The fields in order of concatenation, as tsvector input text ('' for no words). */
export function searchVectorText(fields: SearchVectorField[]): string {
  const vector = new Map<string, Entry>();
  let largest = 0;
  fields.forEach((field, index) => (largest = addField(vector, field, index, largest)));
  let text = '';
  for (const [word, entry] of vector) text += `${text === '' ? '' : ' '}${quotedLexeme(word)}:${entry.positions}`;
  return text;
}

/** What an email's vector is built from: its stored subject, sender, recipients and text body (null when not stored). */
export interface SearchableEmail extends HeaderRecipients {
  subject: string;
  from: string;
  textBody: string | null;
}

/** The body as far as migration 0020 indexed it. */
const SEARCHED_BODY_CHARS = 100_000;

/** An email's tsvector text: subject (A), sender (B), recipients (C), body (D), as migration 0020 ordered them. */
export const emailSearchVector = (email: SearchableEmail) =>
  searchVectorText([
    { text: email.subject, weight: 'A' },
    { text: email.from, weight: 'B' },
    { text: recipientsSearchText(email), weight: 'C' },
    { text: firstCharacters(email.textBody ?? '', SEARCHED_BODY_CHARS), weight: 'D' },
  ]);
