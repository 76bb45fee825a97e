import { isMultipart, type MimeEntity } from '../../core/mime-structure.js';

/** What BODY[...] asks for (RFC 3501 §6.4.5). */
export interface SectionSpec {
  /** Part numbers, e.g. [2, 1] for "2.1"; empty for the whole message. */
  path: number[];
  text: 'ALL' | 'HEADER' | 'HEADER.FIELDS' | 'HEADER.FIELDS.NOT' | 'TEXT' | 'MIME';
  fields: string[];
}

/** Bytes held in memory (headers) or a range of the raw message (bodies, streamed). */
export type SectionContent = { kind: 'bytes'; data: Buffer } | { kind: 'range'; start: number; end: number };

export class SectionSyntaxError extends Error {}

/** Parses the inside of the brackets: "", "1.2", "HEADER", "2.MIME", "HEADER.FIELDS (DATE FROM)". */
export function parseSection(inner: string): SectionSpec {
  const bad = () => new SectionSyntaxError(`bad section [${inner}]`);
  const pathMatch = /^((?:[1-9]\d*)(?:\.[1-9]\d*)*)?(.*)$/s.exec(inner.trim()) as RegExpExecArray;
  const path = pathMatch[1] === undefined ? [] : pathMatch[1].split('.').map(Number);
  let rest = pathMatch[2] as string;
  if (path.length > 0 && rest !== '') {
    if (!rest.startsWith('.') || rest.length === 1) throw bad();
    rest = rest.slice(1);
  }
  if (rest === '') return { path, text: 'ALL', fields: [] };
  const textMatch = /^(HEADER\.FIELDS\.NOT|HEADER\.FIELDS|HEADER|TEXT|MIME)(?:\s*\((.*)\))?$/is.exec(rest);
  if (textMatch === null) throw bad();
  const text = (textMatch[1] as string).toUpperCase() as SectionSpec['text'];
  if (text === 'MIME' && path.length === 0) throw new SectionSyntaxError('MIME needs a part number');
  const isFields = text === 'HEADER.FIELDS' || text === 'HEADER.FIELDS.NOT';
  if (isFields !== (textMatch[2] !== undefined)) throw bad();
  const fields = (textMatch[2] ?? '').split(/\s+/).map((f) => f.replace(/^"|"$/g, '')).filter((f) => f !== '');
  if (isFields && fields.length === 0) throw new SectionSyntaxError('HEADER.FIELDS needs field names');
  return { path, text, fields };
}

/** Whether the section can be served without the MIME structure (the whole message). */
export const needsStructure = (spec: SectionSpec): boolean => spec.path.length > 0 || spec.text !== 'ALL';

/** Resolves a part path: part 1 of a non-multipart entity is its body; message/rfc822 parts descend into the message. */
function resolvePart(root: MimeEntity, path: number[]): MimeEntity | undefined {
  let container: MimeEntity = root;
  let part: MimeEntity = root;
  for (const n of path) {
    if (isMultipart(container)) {
      const child = container.children[n - 1];
      if (child === undefined) return undefined;
      part = child;
    } else if (n === 1) {
      part = container;
    } else {
      return undefined;
    }
    container = part.message ?? part;
  }
  return part;
}

function headerBlocks(header: Buffer): Array<{ name: string; bytes: Buffer }> {
  const blocks: Array<{ name: string; bytes: Buffer }> = [];
  let start = 0;
  while (start < header.length) {
    let end = header.indexOf(10, start);
    end = end < 0 ? header.length : end + 1;
    const line = header.subarray(start, end);
    const first = line[0];
    const last = blocks[blocks.length - 1];
    if ((first === 0x20 || first === 0x09) && last !== undefined) {
      last.bytes = Buffer.concat([last.bytes, line]);
    } else {
      const colon = line.indexOf(0x3a);
      if (colon > 0) blocks.push({ name: line.subarray(0, colon).toString('latin1').trim().toLowerCase(), bytes: line });
    }
    start = end;
  }
  return blocks;
}

function selectFields(header: Buffer, names: string[], exclude: boolean): Buffer {
  const wanted = new Set(names.map((n) => n.toLowerCase()));
  const chosen = headerBlocks(header).filter((b) => wanted.has(b.name) !== exclude);
  return Buffer.concat([...chosen.map((b) => (b.bytes[b.bytes.length - 1] === 10 ? b.bytes : Buffer.concat([b.bytes, Buffer.from('\r\n')]))), Buffer.from('\r\n')]);
}

/** Where the section's bytes are; undefined for a part that does not exist. */
export function sectionContent(root: MimeEntity, spec: SectionSpec): SectionContent | undefined {
  const part = resolvePart(root, spec.path);
  if (part === undefined) return undefined;
  if (spec.text === 'MIME') return { kind: 'bytes', data: part.header };
  if (spec.text === 'ALL') {
    return spec.path.length === 0 ? { kind: 'range', start: 0, end: root.bodyEnd } : { kind: 'range', start: part.bodyStart, end: part.bodyEnd };
  }
  const message = spec.path.length === 0 ? root : part.message;
  if (message === undefined) return undefined;
  switch (spec.text) {
    case 'HEADER':
      return { kind: 'bytes', data: message.header };
    case 'TEXT':
      return { kind: 'range', start: message.bodyStart, end: message.bodyEnd };
    default:
      return { kind: 'bytes', data: selectFields(message.header, spec.fields, spec.text === 'HEADER.FIELDS.NOT') };
  }
}
