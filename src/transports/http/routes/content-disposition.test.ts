import { describe, expect, it } from 'vitest';
import { attachmentDisposition, safeContentType } from './content-disposition.js';

/** How simple clients (the hosted service's SDK and MCP server) read the name. */
const splitFilename = (header: string) => header.split('filename=')[1]?.replace(/['"]/g, '');

describe('attachmentDisposition', () => {
  it('sends safe ASCII names plainly, so a filename= splitter reads them right', () => {
    expect(attachmentDisposition('report.pdf')).toBe('attachment; filename="report.pdf"');
    expect(splitFilename(attachmentDisposition('Q3 report (final).pdf'))).toBe('Q3 report (final).pdf');
  });

  it('adds filename* (RFC 5987) with an ASCII fallback only when the name needs it', () => {
    expect(attachmentDisposition('résumé.pdf')).toBe(`attachment; filename="r_sum_.pdf"; filename*=UTF-8''r%C3%A9sum%C3%A9.pdf`);
    expect(attachmentDisposition('a"b\\c.txt')).toBe(`attachment; filename="a_b_c.txt"; filename*=UTF-8''a%22b%5Cc.txt`);
  });

  it('drops control characters and lone surrogates, and names an empty result', () => {
    expect(attachmentDisposition('re\r\nport\u0000.pdf')).toBe('attachment; filename="report.pdf"');
    expect(attachmentDisposition('\ud800x.txt')).toBe('attachment; filename="x.txt"');
    expect(attachmentDisposition('\u0007')).toBe('attachment; filename="attachment"');
  });
});

describe('safeContentType', () => {
  it('keeps a plain media type and its well-formed parameters', () => {
    expect(safeContentType('Application/PDF')).toBe('application/pdf');
    expect(safeContentType('text/plain; charset=utf-8')).toBe('text/plain; charset=utf-8');
  });

  it('serves anything else as application/octet-stream, or drops the bad parameter', () => {
    expect(safeContentType('text/pl\u4e2dain')).toBe('application/octet-stream');
    expect(safeContentType('text/plain\u0001')).toBe('application/octet-stream');
    expect(safeContentType('')).toBe('application/octet-stream');
    expect(safeContentType('text/plain; name="r\u00e9\u0001.txt"')).toBe('text/plain');
  });
});
