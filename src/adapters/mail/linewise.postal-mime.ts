import PostalMime, { type Email, type RawEmail } from 'postal-mime';

/**
 * The version whose internals LinewisePostalMime uses; package.json pins it, and the test compares
 * every corpus message with postal-mime's own parse and fails on any other version.
 */
export const POSTAL_MIME_VERSION = '4.0.0';

/** What `parse` below reads and calls of postal-mime's parser (dist/esm/postal-mime.js): internal members, absent from its typings. */
interface ParserInternals {
  started: boolean;
  buf: ArrayBuffer;
  av: Uint8Array;
  options: { forceRfc822Attachments?: boolean };
  boundaries: unknown[];
  currentNode: { feed(line: Uint8Array): void };
  root: unknown;
  forceRfc822Attachments: boolean;
  resolveInput(buf: RawEmail): Promise<ArrayBuffer>;
  processLine(line: Uint8Array, isFinal: boolean): Promise<void>;
  hasReportParts(): boolean;
  collectNode(node: unknown, alternative: boolean, related: boolean): Promise<void>;
  renderTextContent(): void;
  buildMessage(): Email;
  encodeAttachments(): void;
}

const LF = 0x0a;
const CR = 0x0d;
const HYPHEN = 0x2d;

/**
 * postal-mime's parse, its steps in its order, with two changes to the loop over lines
 * (docs/decisions.md D52). A line's end is found with indexOf instead of a JavaScript loop over every
 * byte (the line is the same: up to the LF, trailing CRs dropped). And a line that cannot end a part
 * (not the last line, and not starting with "--" while a multipart is open: `processLine`'s own test)
 * goes to the current part's `feed` directly, which is all `processLine` does with it; postal-mime
 * awaited `processLine` for every line, one promise and one microtask per line of the message.
 */
export class LinewisePostalMime extends PostalMime {
  override async parse(input: RawEmail): Promise<Email> {
    const parser = this as unknown as ParserInternals;
    if (parser.started) throw new Error('Can not reuse parser, create a new PostalMime object');
    parser.started = true;
    parser.buf = await parser.resolveInput(input);
    const bytes = (parser.av = new Uint8Array(parser.buf));
    let start = 0;
    while (start < bytes.length) {
      const lf = bytes.indexOf(LF, start);
      const next = lf === -1 ? bytes.length : lf + 1;
      let end = lf === -1 ? bytes.length : lf;
      while (end > start && bytes[end - 1] === CR) end--;
      const line = new Uint8Array(parser.buf, start, end - start);
      const isFinal = next >= bytes.length;
      start = next;
      if (isFinal || mayEndPart(parser, line)) await parser.processLine(line, isFinal);
      else parser.currentNode.feed(line);
    }
    parser.forceRfc822Attachments = Boolean(parser.options.forceRfc822Attachments) || parser.hasReportParts();
    await parser.collectNode(parser.root, false, false);
    parser.renderTextContent();
    const message = parser.buildMessage();
    parser.encodeAttachments();
    return message;
  }
}

const mayEndPart = (parser: ParserInternals, line: Uint8Array) => parser.boundaries.length > 0 && line.length > 2 && line[0] === HYPHEN && line[1] === HYPHEN;
