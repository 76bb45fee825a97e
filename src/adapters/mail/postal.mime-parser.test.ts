import { afterEach, describe, expect, it } from 'vitest';
import { MIME_CORPUS } from '../../../test/fixtures/mime-corpus.js';
import { installBufferBlob } from './buffer-blob.js';
import { PostalMimeParser } from './postal.mime-parser.js';

/** The bytes as the SMTP reader hands them to a worker: in a growable SharedArrayBuffer. */
function inSharedMemory(raw: string): Buffer {
  const bytes = Buffer.from(raw, 'latin1');
  const memory = new (SharedArrayBuffer as unknown as new (length: number, options: { maxByteLength: number }) => SharedArrayBuffer)(bytes.byteLength, { maxByteLength: 1 << 20 });
  const shared = Buffer.from(memory, 0, bytes.byteLength);
  bytes.copy(shared);
  return shared;
}

/** The bytes as the analyzer copies them for itself: a Buffer filling its ArrayBuffer whole. */
function owned(raw: string): Buffer {
  const bytes = Buffer.from(raw, 'latin1');
  const own = Buffer.allocUnsafeSlow(bytes.byteLength);
  bytes.copy(own);
  return own;
}

describe('PostalMimeParser', () => {
  const nodeBlob = globalThis.Blob;
  afterEach(() => {
    globalThis.Blob = nodeBlob;
  });

  it('parses with the workers\' BufferBlob, from a whole buffer or from shared memory, exactly as with Node\'s Blob', async () => {
    const parser = new PostalMimeParser();
    const messages = [
      ...MIME_CORPUS.map((message) => message.raw),
      'From: a@example.com\r\nContent-Type: multipart/mixed; boundary=x\r\n\r\n--x\r\nContent-Type: text/plain; charset=windows-1252\r\n\r\nCaf\xe9 \x80 \x93\r\n--x\r\nContent-Type: application/octet-stream\r\nContent-Disposition: attachment; filename=data.bin\r\nContent-Transfer-Encoding: base64\r\n\r\nAAECA/8=\r\n--x--\r\n',
    ];
    const onMainThread = [];
    for (const raw of messages) onMainThread.push(await parser.parse(Buffer.from(raw, 'latin1')));
    installBufferBlob();
    for (const [i, raw] of messages.entries()) {
      expect(await parser.parse(owned(raw))).toEqual(onMainThread[i]);
      expect(await parser.parse(inSharedMemory(raw))).toEqual(onMainThread[i]);
    }
  });
});
