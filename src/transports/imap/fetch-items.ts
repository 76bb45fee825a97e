import type { Token } from './imap-parser.js';
import { parseSection, type SectionSpec } from './sections.js';

export type FetchItem =
  | { kind: 'FLAGS' | 'UID' | 'INTERNALDATE' | 'RFC822.SIZE' | 'ENVELOPE' | 'BODYSTRUCTURE' | 'BODY' }
  | {
      kind: 'section';
      /** The name the response carries: BODY[...] as requested (without .PEEK), RFC822, RFC822.HEADER, RFC822.TEXT. */
      label: string;
      spec: SectionSpec;
      /** Sets \Seen (BODY[...] without PEEK, RFC822, RFC822.TEXT). */
      marksSeen: boolean;
      partial: { start: number; length: number } | undefined;
    };

export class FetchSyntaxError extends Error {}

const SIMPLE = new Set(['FLAGS', 'UID', 'INTERNALDATE', 'RFC822.SIZE', 'ENVELOPE', 'BODYSTRUCTURE', 'BODY']);
const MACROS: Record<string, string[]> = {
  ALL: ['FLAGS', 'INTERNALDATE', 'RFC822.SIZE', 'ENVELOPE'],
  FAST: ['FLAGS', 'INTERNALDATE', 'RFC822.SIZE'],
  FULL: ['FLAGS', 'INTERNALDATE', 'RFC822.SIZE', 'ENVELOPE', 'BODY'],
};
const SECTION = /^BODY(\.PEEK)?\[(.*)\](?:<(\d+)\.(\d+)>)?$/is;

function parseItem(atom: string): FetchItem {
  const upper = atom.toUpperCase();
  if (SIMPLE.has(upper)) return { kind: upper as 'FLAGS' };
  if (upper === 'RFC822') return { kind: 'section', label: 'RFC822', spec: parseSection(''), marksSeen: true, partial: undefined };
  if (upper === 'RFC822.HEADER') return { kind: 'section', label: 'RFC822.HEADER', spec: parseSection('HEADER'), marksSeen: false, partial: undefined };
  if (upper === 'RFC822.TEXT') return { kind: 'section', label: 'RFC822.TEXT', spec: parseSection('TEXT'), marksSeen: true, partial: undefined };
  const match = SECTION.exec(atom);
  if (match === null) throw new FetchSyntaxError(`unknown fetch item ${atom}`);
  const inner = match[2] as string;
  const partial = match[3] === undefined ? undefined : { start: Number(match[3]), length: Number(match[4]) };
  if (partial !== undefined && partial.length === 0) throw new FetchSyntaxError('partial length must be positive');
  return { kind: 'section', label: `BODY[${inner}]`, spec: parseSection(inner), marksSeen: match[1] === undefined, partial };
}

/** The items of FETCH: one atom, a macro, or a parenthesised list. */
export function parseFetchItems(token: Token | undefined): FetchItem[] {
  if (token === undefined) throw new FetchSyntaxError('missing fetch items');
  if (token.type === 'atom') {
    const macro = MACROS[token.value.toUpperCase()];
    return macro !== undefined ? macro.map(parseItem) : [parseItem(token.value)];
  }
  if (token.type !== 'list' || token.items.length === 0) throw new FetchSyntaxError('bad fetch items');
  return token.items.map((item) => {
    if (item.type !== 'atom') throw new FetchSyntaxError('bad fetch item');
    return parseItem(item.value);
  });
}
