import type { SearchableRow } from '../../adapters/db/repositories/imap-mailbox.repository.js';
import type { ImapMessage } from '../../services/imap-mailbox.service.js';
import type { Token } from './imap-parser.js';
import { parseSearchDate } from './imap-format.js';
import { inSequenceSet, parseSequenceSet, type SequenceSet } from './sequence-set.js';

/** A parsed SEARCH program (RFC 3501 §6.4.4). */
export type Criterion =
  | { op: 'and'; all: Criterion[] }
  | { op: 'or'; a: Criterion; b: Criterion }
  | { op: 'not'; c: Criterion }
  | { op: 'const'; value: boolean }
  | { op: 'seen' | 'deleted'; value: boolean }
  | { op: 'seq' | 'uid'; set: SequenceSet }
  | { op: 'size'; larger: boolean; n: number }
  | { op: 'date'; field: 'internal' | 'sent'; cmp: 'before' | 'on' | 'since'; day: Date }
  | { op: 'text'; field: 'from' | 'to' | 'cc' | 'bcc' | 'subject' | 'body' | 'text'; needle: string }
  | { op: 'header'; name: string; needle: string };

export class SearchSyntaxError extends Error {}

/** Message state SEARCH evaluates against; `row` is present when the program needs content. */
export interface SearchSubject {
  seq: number;
  message: ImapMessage;
  deleted: boolean;
  row: SearchableRow | undefined;
}

const FLAG_KEYS: Record<string, Criterion> = {
  ALL: { op: 'const', value: true },
  SEEN: { op: 'seen', value: true },
  UNSEEN: { op: 'seen', value: false },
  DELETED: { op: 'deleted', value: true },
  UNDELETED: { op: 'deleted', value: false },
  // Flags the server never stores: \Answered, \Flagged, \Draft, \Recent are never set.
  ANSWERED: { op: 'const', value: false },
  UNANSWERED: { op: 'const', value: true },
  FLAGGED: { op: 'const', value: false },
  UNFLAGGED: { op: 'const', value: true },
  DRAFT: { op: 'const', value: false },
  UNDRAFT: { op: 'const', value: true },
  RECENT: { op: 'const', value: false },
  NEW: { op: 'const', value: false },
  OLD: { op: 'const', value: true },
};
const TEXT_KEYS = { FROM: 'from', TO: 'to', CC: 'cc', BCC: 'bcc', SUBJECT: 'subject', BODY: 'body', TEXT: 'text' } as const;
const DATE_KEYS: Record<string, ['internal' | 'sent', 'before' | 'on' | 'since']> = {
  BEFORE: ['internal', 'before'],
  ON: ['internal', 'on'],
  SINCE: ['internal', 'since'],
  SENTBEFORE: ['sent', 'before'],
  SENTON: ['sent', 'on'],
  SENTSINCE: ['sent', 'since'],
};

class SearchParser {
  private i = 0;
  constructor(private readonly tokens: Token[]) {}

  parseAll(): Criterion {
    const all: Criterion[] = [];
    while (this.i < this.tokens.length) all.push(this.one());
    if (all.length === 0) throw new SearchSyntaxError('missing search criteria');
    return all.length === 1 ? (all[0] as Criterion) : { op: 'and', all };
  }

  private value(): string {
    const token = this.tokens[this.i++];
    if (token === undefined || token.type === 'list') throw new SearchSyntaxError('missing search argument');
    return token.value;
  }

  /** A search string: wire bytes (latin1 here) read as UTF-8, lower-cased for matching. */
  private needle(): string {
    return Buffer.from(this.value(), 'latin1').toString('utf8').toLowerCase();
  }

  private one(): Criterion {
    const token = this.tokens[this.i++];
    if (token === undefined) throw new SearchSyntaxError('missing search key');
    if (token.type === 'list') return new SearchParser(token.items).parseAll();
    if (token.type === 'string') throw new SearchSyntaxError(`unexpected string "${token.value}"`);
    const key = token.value.toUpperCase();
    const flag = FLAG_KEYS[key];
    if (flag !== undefined) return flag;
    if (key in TEXT_KEYS) return { op: 'text', field: TEXT_KEYS[key as keyof typeof TEXT_KEYS], needle: this.needle() };
    const date = DATE_KEYS[key];
    if (date !== undefined) {
      const day = parseSearchDate(this.value());
      if (day === undefined) throw new SearchSyntaxError(`bad date for ${key}`);
      return { op: 'date', field: date[0], cmp: date[1], day };
    }
    switch (key) {
      case 'NOT':
        return { op: 'not', c: this.one() };
      case 'OR':
        return { op: 'or', a: this.one(), b: this.one() };
      case 'HEADER':
        return { op: 'header', name: this.value().toLowerCase(), needle: this.needle() };
      case 'LARGER':
      case 'SMALLER':
        return { op: 'size', larger: key === 'LARGER', n: this.number() };
      case 'KEYWORD':
        this.value();
        return { op: 'const', value: false };
      case 'UNKEYWORD':
        this.value();
        return { op: 'const', value: true };
      case 'UID':
        return { op: 'uid', set: this.set(this.value()) };
      default:
        return { op: 'seq', set: this.set(token.value) };
    }
  }

  private number(): number {
    const raw = this.value();
    if (!/^\d+$/.test(raw)) throw new SearchSyntaxError(`expected a number, got ${raw}`);
    return Number(raw);
  }

  private set(raw: string): SequenceSet {
    const set = parseSequenceSet(raw);
    if (set === undefined) throw new SearchSyntaxError(`unknown search key ${raw}`);
    return set;
  }
}

/** Parses SEARCH arguments after an optional CHARSET (only UTF-8 and US-ASCII are understood). */
export function parseSearch(tokens: Token[]): { criterion: Criterion; charset: string | undefined } {
  let charset: string | undefined;
  let rest = tokens;
  if (tokens[0]?.type === 'atom' && tokens[0].value.toUpperCase() === 'CHARSET') {
    const value = tokens[1];
    if (value === undefined || value.type === 'list') throw new SearchSyntaxError('CHARSET needs a value');
    charset = value.value;
    rest = tokens.slice(2);
  }
  return { criterion: new SearchParser(rest).parseAll(), charset };
}

export function needsContent(c: Criterion): boolean {
  switch (c.op) {
    case 'and':
      return c.all.some(needsContent);
    case 'or':
      return needsContent(c.a) || needsContent(c.b);
    case 'not':
      return needsContent(c.c);
    case 'text':
    case 'header':
      return true;
    case 'date':
      return c.field === 'sent';
    default:
      return false;
  }
}

const DAY_MS = 86_400_000;

function compareDay(iso: string, cmp: 'before' | 'on' | 'since', day: Date): boolean {
  const time = Date.parse(iso);
  if (Number.isNaN(time)) return false;
  const start = day.getTime();
  if (cmp === 'before') return time < start;
  if (cmp === 'since') return time >= start;
  return time >= start && time < start + DAY_MS;
}

function textOf(row: SearchableRow, field: Extract<Criterion, { op: 'text' }>['field']): string {
  const header = (name: string) => row.headers[name] ?? '';
  switch (field) {
    case 'from':
      return `${header('from')}\n${row.from}`;
    case 'to':
    case 'cc':
    case 'bcc':
      return `${header(field)}\n${row[field].join(', ')}`;
    case 'subject':
      return `${header('subject')}\n${row.subject}`;
    case 'body':
      return row.text;
    case 'text':
      return `${Object.entries(row.headers).map(([k, v]) => `${k}: ${v}`).join('\n')}\n${row.text}`;
  }
}

export function matches(c: Criterion, s: SearchSubject, largestSeq: number, largestUid: number): boolean {
  switch (c.op) {
    case 'and':
      return c.all.every((x) => matches(x, s, largestSeq, largestUid));
    case 'or':
      return matches(c.a, s, largestSeq, largestUid) || matches(c.b, s, largestSeq, largestUid);
    case 'not':
      return !matches(c.c, s, largestSeq, largestUid);
    case 'const':
      return c.value;
    case 'seen':
      return s.message.read === c.value;
    case 'deleted':
      return s.deleted === c.value;
    case 'seq':
      return inSequenceSet(c.set, s.seq, largestSeq);
    case 'uid':
      return inSequenceSet(c.set, s.message.uid, largestUid);
    case 'size':
      return c.larger ? s.message.size > c.n : s.message.size < c.n;
    case 'date':
      return compareDay(c.field === 'internal' ? s.message.receivedAt : (s.row?.date ?? ''), c.cmp, c.day);
    case 'text':
      return s.row !== undefined && textOf(s.row, c.field).toLowerCase().includes(c.needle);
    case 'header':
      return s.row !== undefined && (c.needle === '' ? c.name in s.row.headers : (s.row.headers[c.name] ?? '').toLowerCase().includes(c.needle));
  }
}
