import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import PostalMime from 'postal-mime';
import { afterEach, describe, expect, it } from 'vitest';
import { MIME_CORPUS } from '../../../test/fixtures/mime-corpus.js';
import { installBufferBlob } from './buffer-blob.js';
import { LinewisePostalMime, POSTAL_MIME_VERSION } from './linewise.postal-mime.js';

const installed = JSON.parse(readFileSync(createRequire(import.meta.url).resolve('postal-mime/package.json'), 'utf8')) as { version: string };

const multipart = (eol: string) =>
  ['From: a@example.com', 'Content-Type: multipart/mixed; boundary="x"', '', 'preamble', '--x', 'Content-Type: multipart/alternative; boundary=y', '', '--y',
    'Content-Type: text/plain; charset=windows-1252', 'Content-Transfer-Encoding: quoted-printable', '', 'caf=E9 =80', '--y', 'Content-Type: text/html', '',
    '<p>--x is not a boundary here</p>', '--yy not one either', '--y--  ', '--x', 'Content-Type: application/octet-stream', 'Content-Disposition: attachment; filename=a.bin',
    'Content-Transfer-Encoding: base64', '', 'AAECA/8=', '--x--', 'epilogue'].join(eol);

/** Line ends and part ends as they come: CRLF, LF, stray CRs, no final line break, a boundary on the last line, lines of dashes outside a multipart. */
const MESSAGES = [
  ...MIME_CORPUS.map((message) => message.raw),
  multipart('\r\n'),
  `${multipart('\n')}\n`,
  multipart('\r\n').replace(/epilogue$/, ''),
  `${multipart('\r\n')}\r\r\n\r`,
  'From: a@example.com\r\nSubject: x\r\n\r\n-- \r\nsignature\r\n--\r\n---\r\nline\rwith a CR\r\r\n\r\nlast line without a break',
  'From: a@example.com\nSubject: only headers',
  'Subject: =?utf-8?q?caf=C3=A9?=\r\n\r\n\r\n\r\n',
  '\r\n\r\nbody without headers\r\n',
  '\n',
  '',
];

describe('LinewisePostalMime', () => {
  const nodeBlob = globalThis.Blob;
  afterEach(() => {
    globalThis.Blob = nodeBlob;
  });

  it('is used with the postal-mime version it was written for (its internals are not a public API)', () => {
    expect(installed.version).toBe(POSTAL_MIME_VERSION);
  });

  it('parses every message exactly as postal-mime\'s own parse, with Node\'s Blob and with the workers\' BufferBlob', async () => {
    const options = { attachmentEncoding: 'arraybuffer', maxHeadersSize: 1024 * 1024 } as const;
    for (const install of [() => {}, installBufferBlob]) {
      install();
      for (const raw of MESSAGES) {
        const bytes = () => Buffer.from(raw, 'latin1');
        expect(await new LinewisePostalMime(options).parse(bytes())).toEqual(await PostalMime.parse(bytes(), options));
      }
    }
  });

  it('fails where postal-mime fails, with its error', async () => {
    const options = { maxHeadersSize: 64 };
    const raw = `Subject: ${'x'.repeat(100)}\r\n\r\nbody\r\n`;
    await expect(new LinewisePostalMime(options).parse(raw)).rejects.toThrow('Maximum header size of 64 bytes exceeded');
    await expect(PostalMime.parse(raw, options)).rejects.toThrow('Maximum header size of 64 bytes exceeded');
    const parser = new LinewisePostalMime();
    await parser.parse('Subject: x\r\n\r\nbody');
    await expect(parser.parse('Subject: x\r\n\r\nbody')).rejects.toThrow('Can not reuse parser');
  });
});
