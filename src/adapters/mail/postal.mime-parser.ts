import type { Address, Attachment } from 'postal-mime';
import { htmlToText } from '../../core/html-text.js';
import type { MimeParser, ParsedAttachment, ParsedMessage } from '../../ports/mime-parser.js';
import { repairCp1252 } from './cp1252.js';
import { LinewisePostalMime } from './linewise.postal-mime.js';

function addresses(list: Address[] | Address | undefined): string[] {
  if (list === undefined) return [];
  const out: string[] = [];
  for (const entry of Array.isArray(list) ? list : [list]) {
    if (entry.group !== undefined) out.push(...entry.group.map((m) => m.address));
    else if (entry.address) out.push(entry.address);
  }
  return out.map((a) => a.trim()).filter((a) => a.length > 0);
}

function isoDate(value: string | undefined): string | null {
  if (value === undefined) return null;
  const time = Date.parse(value);
  return Number.isNaN(time) ? null : new Date(time).toISOString();
}

function attachment(part: Attachment, index: number): ParsedAttachment {
  const content = typeof part.content === 'string' ? Buffer.from(part.content, 'utf8') : new Uint8Array(part.content);
  const extension = part.mimeType.split('/')[1]?.replace(/[^a-z0-9]/gi, '') ?? 'bin';
  return {
    filename: repairCp1252(part.filename ?? `attachment-${index + 1}.${extension}`),
    contentType: part.mimeType,
    content,
    contentId: part.contentId?.replace(/^<|>$/g, '') ?? null,
    disposition: part.disposition === 'inline' ? 'inline' : 'attachment',
  };
}

/**
 * Largest header block we parse, counted over every part's headers together. Above it the parser
 * throws, and the message is refused with 554 5.6.0 (docs/smtp.md): no legitimate mail carries
 * a megabyte of headers, and parsing them costs CPU for every session.
 */
export const MAX_HEADER_BYTES = 1024 * 1024;

/**
 * postal-mime copies a view's bytes out of their buffer before parsing (it reads but never writes
 * them). When the message fills its buffer whole, as the analyzer's own copy and a spool file read
 * do, the buffer itself is handed over and that copy is saved. Never a SharedArrayBuffer: see
 * `unshared` in inline.message-analyzer.ts.
 */
function parserInput(raw: Buffer): ArrayBuffer | Buffer {
  return raw.buffer instanceof ArrayBuffer && raw.byteOffset === 0 && raw.byteLength === raw.buffer.byteLength ? raw.buffer : raw;
}

/** postal-mime (its line loop made cheaper, linewise.postal-mime.ts) with the windows-1252 repair (stack notes §1a) and text derived from HTML when missing. */
export class PostalMimeParser implements MimeParser {
  async parse(raw: Buffer): Promise<ParsedMessage> {
    const email = await new LinewisePostalMime({ attachmentEncoding: 'arraybuffer', maxHeadersSize: MAX_HEADER_BYTES }).parse(parserInput(raw));
    const headers: Record<string, string> = {};
    for (const header of email.headers) {
      headers[header.key] = header.key in headers ? `${headers[header.key]}\n${header.value}` : header.value;
    }
    const html = email.html === undefined ? null : repairCp1252(email.html);
    const text = email.text !== undefined ? repairCp1252(email.text) : html !== null ? htmlToText(html) : null;
    return {
      messageId: email.messageId?.trim() || null,
      from: addresses(email.from)[0] ?? addresses(email.sender)[0] ?? '',
      to: addresses(email.to),
      cc: addresses(email.cc),
      bcc: addresses(email.bcc),
      subject: repairCp1252(email.subject ?? ''),
      date: isoDate(email.date),
      text,
      html,
      headers,
      attachments: email.attachments.map(attachment),
    };
  }
}
