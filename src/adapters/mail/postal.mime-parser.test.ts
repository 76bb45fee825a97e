import { afterEach, describe, expect, it } from 'vitest';
import { MIME_CORPUS } from '../../../test/fixtures/mime-corpus.js';
import { installBufferBlob } from './buffer-blob.js';
import { PostalMimeParser } from './postal.mime-parser.js';

/** The bytes as the SMTP reader hands them to a worker: a Buffer filling a SharedArrayBuffer whole. */
function inSharedMemory(raw: string): Buffer {
  const bytes = Buffer.from(raw, 'latin1');
  const shared = Buffer.from(new SharedArrayBuffer(bytes.byteLength));
  bytes.copy(shared);
  return shared;
}

describe('PostalMimeParser', () => {
  const nodeBlob = globalThis.Blob;
  afterEach(() => {
    globalThis.Blob = nodeBlob;
  });

  it('parses shared memory with the workers\' BufferBlob exactly as a plain Buffer with Node\'s Blob', async () => {
    const parser = new PostalMimeParser();
    const messages = [
      ...MIME_CORPUS.map((message) => message.raw),
      'From: a@example.com\r\nContent-Type: multipart/mixed; boundary=x\r\n\r\n--x\r\nContent-Type: text/plain; charset=windows-1252\r\n\r\nCaf\xe9 \x80 \x93\r\n--x\r\nContent-Type: application/octet-stream\r\nContent-Disposition: attachment; filename=data.bin\r\nContent-Transfer-Encoding: base64\r\n\r\nAAECA/8=\r\n--x--\r\n',
    ];
    const onMainThread = [];
    for (const raw of messages) onMainThread.push(await parser.parse(Buffer.from(raw, 'latin1')));
    installBufferBlob();
    for (const [i, raw] of messages.entries()) expect(await parser.parse(inSharedMemory(raw))).toEqual(onMainThread[i]);
  });
});
