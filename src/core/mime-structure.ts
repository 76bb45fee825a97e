/**
 * The MIME tree of a raw message as byte ranges, built in one streaming pass (IMAP BODYSTRUCTURE,
 * ENVELOPE and BODY[section] need offsets, not decoded content). Only header bytes are kept in
 * memory; bodies are counted, so a 25 MB attachment costs a few hundred bytes here.
 *
 * Boundary matching follows Dovecot's message parser: a line matches the longest active boundary
 * it starts with, innermost first on ties; the CRLF before a delimiter belongs to the delimiter
 * (unless that CRLF ends another delimiter line); body line counts are the LFs inside the body.
 */

export interface HeaderField {
  /** As written, e.g. "Content-Type". */
  name: string;
  /** Unfolded value, raw (encoded words are not decoded). */
  value: string;
  /** Whether the value spanned several lines. */
  folded: boolean;
}

export interface MediaType {
  type: string;
  subtype: string;
  params: Array<[string, string]>;
}

export interface MimeEntity {
  headerStart: number;
  bodyStart: number;
  bodyEnd: number;
  /** Raw header bytes including the blank line that ends them (capped at MAX_HEADER_BYTES). */
  header: Buffer;
  fields: HeaderField[];
  contentType: MediaType;
  /** LF characters inside the body, as IMAP's body line count (RFC 3501 §7.4.2). */
  bodyLines: number;
  /** Parts of a multipart entity. */
  children: MimeEntity[];
  /** The encapsulated message of a message/rfc822 entity. */
  message: MimeEntity | undefined;
}

const MAX_HEADER_BYTES = 1024 * 1024;
/** A boundary line is at most 70 characters plus dashes and padding; body lines need no more. */
const BODY_LINE_PREFIX = 256;
const MAX_DEPTH = 50;
const LF = 10;
const CR = 13;

type Phase = 'header' | 'body' | 'preamble' | 'parts' | 'epilogue';

interface OpenEntity {
  entity: MimeEntity;
  phase: Phase;
  headerChunks: Buffer[];
  headerBytes: number;
  bodyFirstLine: number;
  boundary: Buffer | undefined;
  depth: number;
  /** multipart/digest changes its children's default type. */
  digest: boolean;
  inDigest: boolean;
}

function parseHeaderFields(header: Buffer): HeaderField[] {
  const text = header.toString('latin1');
  const fields: HeaderField[] = [];
  for (const line of text.split(/\r?\n/)) {
    if (line === '') continue;
    const last = fields[fields.length - 1];
    if ((line.startsWith(' ') || line.startsWith('\t')) && last !== undefined) {
      last.value += line;
      last.folded = true;
      continue;
    }
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    fields.push({ name: line.slice(0, colon).trim(), value: line.slice(colon + 1).trim(), folded: false });
  }
  return fields;
}

export function headerField(fields: HeaderField[], name: string): HeaderField | undefined {
  const lower = name.toLowerCase();
  return fields.find((f) => f.name.toLowerCase() === lower);
}

export function headerValue(fields: HeaderField[], name: string): string | undefined {
  return headerField(fields, name)?.value;
}

/** `value; a=b; c="d"` → the value and its parameters (RFC 2045 §5.1; RFC 2231 names kept as written). */
export function parseParameterised(raw: string): { value: string; params: Array<[string, string]> } {
  const text = raw.replace(/\([^()]*\)/g, ' ');
  let i = text.indexOf(';');
  const value = (i < 0 ? text : text.slice(0, i)).trim();
  const params: Array<[string, string]> = [];
  while (i >= 0 && i < text.length) {
    i++;
    const eq = text.indexOf('=', i);
    if (eq < 0) break;
    const name = text.slice(i, eq).trim();
    let j = eq + 1;
    while (text[j] === ' ' || text[j] === '\t') j++;
    let paramValue = '';
    if (text[j] === '"') {
      j++;
      while (j < text.length && text[j] !== '"') {
        if (text[j] === '\\' && j + 1 < text.length) j++;
        paramValue += text[j];
        j++;
      }
      j = text.indexOf(';', j);
    } else {
      const end = text.indexOf(';', j);
      paramValue = (end < 0 ? text.slice(j) : text.slice(j, end)).trim();
      j = end;
    }
    if (name !== '' && /^[\x21-\x7e]+$/.test(name)) params.push([name, paramValue]);
    i = j;
  }
  return { value, params };
}

/** Content-Type, or the default (text/plain; message/rfc822 inside multipart/digest) when absent or malformed. */
function mediaTypeOf(fields: HeaderField[], inDigest: boolean): MediaType {
  const raw = headerValue(fields, 'content-type');
  const fallback: MediaType = inDigest
    ? { type: 'message', subtype: 'rfc822', params: [] }
    : { type: 'text', subtype: 'plain', params: [] };
  if (raw === undefined) return fallback;
  const { value, params } = parseParameterised(raw);
  const match = /^([!#$%&'*+\-.^_`|~0-9A-Za-z]+)\/([!#$%&'*+\-.^_`|~0-9A-Za-z]+)$/.exec(value);
  if (match === null) return fallback;
  return { type: match[1] as string, subtype: match[2] as string, params };
}

const paramOf = (type: MediaType, name: string): string | undefined => type.params.find(([n]) => n.toLowerCase() === name)?.[1];

export function isMultipart(entity: MimeEntity): boolean {
  return entity.contentType.type.toLowerCase() === 'multipart';
}

function newEntity(headerStart: number): MimeEntity {
  return {
    headerStart,
    bodyStart: headerStart,
    bodyEnd: headerStart,
    header: Buffer.alloc(0),
    fields: [],
    contentType: { type: 'text', subtype: 'plain', params: [] },
    bodyLines: 0,
    children: [],
    message: undefined,
  };
}

/** Feed the raw message with push(), then end() returns the root entity. */
export class MimeScanner {
  private readonly open: OpenEntity[] = [];
  private readonly root: MimeEntity = newEntity(0);
  private offset = 0;
  private lineNo = 0;
  private lineLength = 0;
  private lineChunks: Buffer[] = [];
  private lineKept = 0;
  private prevTerminator = 0;
  private lineWasBoundary = false;
  private prevWasBoundary = false;
  private lastByte = -1;

  constructor() {
    this.open.push(this.opened(this.root, 0, false));
  }

  push(chunk: Buffer): void {
    let start = 0;
    while (start < chunk.length) {
      const nl = chunk.indexOf(LF, start);
      if (nl < 0) {
        this.appendPiece(chunk.subarray(start));
        return;
      }
      // The CR may have ended the previous chunk: decide before this piece updates lastByte.
      const crlf = nl > start ? chunk[nl - 1] === CR : this.lastByte === CR;
      this.appendPiece(chunk.subarray(start, nl + 1));
      this.finishLine(crlf);
      start = nl + 1;
    }
  }

  end(): MimeEntity {
    const partial = this.lineLength > 0;
    if (partial) this.finishLine(false, true);
    const lfs = this.lineNo - (partial ? 1 : 0);
    while (this.open.length > 0) this.close(this.open.pop() as OpenEntity, this.offset, lfs);
    return this.root;
  }

  private opened(entity: MimeEntity, depth: number, inDigest: boolean): OpenEntity {
    return { entity, phase: 'header', headerChunks: [], headerBytes: 0, bodyFirstLine: 0, boundary: undefined, depth, digest: false, inDigest };
  }

  private get current(): OpenEntity {
    return this.open[this.open.length - 1] as OpenEntity;
  }

  private appendPiece(piece: Buffer): void {
    if (piece.length === 0) return;
    const keepAll = this.current.phase === 'header';
    const room = keepAll ? piece.length : Math.max(0, BODY_LINE_PREFIX - this.lineKept);
    if (room > 0) {
      const kept = piece.subarray(0, room);
      this.lineChunks.push(kept);
      this.lineKept += kept.length;
    }
    this.lineLength += piece.length;
    this.lastByte = piece[piece.length - 1] as number;
  }

  private finishLine(crlf: boolean, atEof = false): void {
    const terminator = atEof ? 0 : crlf ? 2 : 1;
    const line = this.lineChunks.length === 1 ? (this.lineChunks[0] as Buffer) : Buffer.concat(this.lineChunks);
    const content = line.subarray(0, Math.max(0, Math.min(line.length, this.lineLength - terminator)));
    this.lineWasBoundary = false;
    this.handleLine(line, content);
    this.prevWasBoundary = this.lineWasBoundary;
    this.offset += this.lineLength;
    this.lineNo++;
    this.prevTerminator = terminator;
    this.lineLength = 0;
    this.lineChunks = [];
    this.lineKept = 0;
  }

  private handleLine(line: Buffer, content: Buffer): void {
    const current = this.current;
    if (current.phase === 'header') {
      if (content.length === 0) {
        this.appendHeader(current, line);
        this.endHeader(current, this.offset + this.lineLength);
        return;
      }
      if (this.matchBoundary(content)) return;
      this.appendHeader(current, line);
      // A line that is neither a field nor a continuation ends the header, as in Dovecot.
      if (content[0] !== 0x20 && content[0] !== 0x09 && !content.includes(0x3a)) this.endHeader(current, this.offset + this.lineLength);
      return;
    }
    this.matchBoundary(content);
  }

  private appendHeader(open: OpenEntity, line: Buffer): void {
    if (open.headerBytes >= MAX_HEADER_BYTES) return;
    const kept = line.subarray(0, MAX_HEADER_BYTES - open.headerBytes);
    open.headerChunks.push(Buffer.from(kept));
    open.headerBytes += kept.length;
  }

  private endHeader(open: OpenEntity, bodyStart: number): void {
    const entity = open.entity;
    entity.header = Buffer.concat(open.headerChunks);
    open.headerChunks = [];
    entity.fields = parseHeaderFields(entity.header);
    const contentType = mediaTypeOf(entity.fields, open.inDigest);
    entity.contentType = contentType;
    entity.bodyStart = bodyStart;
    open.bodyFirstLine = this.lineNo + 1;
    open.phase = 'body';
    if (open.depth >= MAX_DEPTH) return;
    const type = contentType.type.toLowerCase();
    const boundary = paramOf(contentType, 'boundary');
    if (type === 'multipart' && boundary !== undefined && boundary !== '') {
      open.boundary = Buffer.from(`--${boundary}`, 'latin1');
      open.digest = contentType.subtype.toLowerCase() === 'digest';
      open.phase = 'preamble';
    } else if (type === 'message' && contentType.subtype.toLowerCase() === 'rfc822') {
      const message = newEntity(bodyStart);
      entity.message = message;
      this.open.push(this.opened(message, open.depth + 1, false));
    }
  }

  /** Returns whether the line was a boundary of an enclosing multipart (and acts on it). */
  private matchBoundary(content: Buffer): boolean {
    if (content.length < 2 || content[0] !== 0x2d || content[1] !== 0x2d) return false;
    let best = -1;
    for (let i = this.open.length - 1; i >= 0; i--) {
      const open = this.open[i] as OpenEntity;
      const boundary = open.boundary;
      if (boundary === undefined || open.phase === 'epilogue') continue;
      if (content.length < boundary.length || !content.subarray(0, boundary.length).equals(boundary)) continue;
      if (best < 0 || boundary.length > ((this.open[best] as OpenEntity).boundary as Buffer).length) best = i;
    }
    if (best < 0) return false;
    const multipart = this.open[best] as OpenEntity;
    this.lineWasBoundary = true;
    const stripped = this.prevWasBoundary ? 0 : this.prevTerminator;
    const delimiterStart = this.offset - stripped;
    const lfs = this.lineNo - (stripped > 0 ? 1 : 0);
    while (this.open.length - 1 > best) this.close(this.open.pop() as OpenEntity, delimiterStart, lfs);
    const rest = content.subarray((multipart.boundary as Buffer).length);
    if (rest.length >= 2 && rest[0] === 0x2d && rest[1] === 0x2d) {
      multipart.phase = 'epilogue';
      return true;
    }
    multipart.phase = 'parts';
    const child = newEntity(this.offset + this.lineLength);
    multipart.entity.children.push(child);
    this.open.push(this.opened(child, multipart.depth + 1, multipart.digest));
    return true;
  }

  /** Ends an entity at byte `end`, with `lfs` LFs seen before that point. */
  private close(open: OpenEntity, end: number, lfs: number): void {
    const entity = open.entity;
    if (open.phase === 'header') {
      // A header cut short by a delimiter ends where the delimiter's CRLF starts.
      open.headerChunks = [Buffer.concat(open.headerChunks).subarray(0, Math.max(0, end - entity.headerStart))];
      this.endHeader(open, Math.max(entity.headerStart, end));
      open.bodyFirstLine = lfs;
      if (entity.message !== undefined) {
        // The encapsulated message was just opened by endHeader; it is empty.
        const message = this.open.pop() as OpenEntity;
        this.close(message, end, lfs);
      }
    }
    entity.bodyEnd = Math.max(entity.bodyStart, end);
    entity.bodyLines = entity.bodyEnd > entity.bodyStart ? Math.max(0, lfs - open.bodyFirstLine) : 0;
    // An encapsulated message whose header ran up to the delimiter keeps the CRLF before it; so does its part.
    const message = entity.message;
    if (message !== undefined && message.bodyEnd > entity.bodyEnd) {
      entity.bodyEnd = message.bodyEnd;
      entity.bodyLines += 1;
    }
  }
}

/** Convenience for a message already in memory. */
export function scanMime(raw: Buffer): MimeEntity {
  const scanner = new MimeScanner();
  scanner.push(raw);
  return scanner.end();
}
