import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NotFoundError } from '../../src/core/errors.js';
import type { BlobStore } from '../../src/ports/blob-store.js';

export interface BlobStoreUnderTest {
  store: BlobStore;
  close(): Promise<void>;
}

async function collect(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

async function listKeys(store: BlobStore, prefix: string): Promise<string[]> {
  const keys: string[] = [];
  for await (const info of store.list(prefix)) keys.push(info.key);
  return keys.sort();
}

/** In pieces, so an adapter cannot tell it from a socket: streamed puts must not need a length. */
function streamOf(bytes: Buffer, pieceBytes = 64 * 1024): Readable {
  return Readable.from((function* () {
    for (let offset = 0; offset < bytes.byteLength; offset += pieceBytes) yield bytes.subarray(offset, offset + pieceBytes);
  })());
}

/**
 * What every BlobStore adapter promises (src/ports/blob-store.ts), run against each real store.
 * Every test works under its own random prefix, so the suite can share one bucket.
 */
export function blobStoreContract(name: string, start: () => Promise<BlobStoreUnderTest>): void {
  describe(`BlobStore contract: ${name}`, () => {
    let subject: BlobStoreUnderTest;
    let store: BlobStore;
    const prefix = () => `contract/${randomUUID()}/`;

    beforeAll(async () => {
      subject = await start();
      store = subject.store;
    });
    afterAll(async () => subject?.close());

    it('puts a buffer and reads it back as a buffer and as a stream', async () => {
      const key = `${prefix()}message.eml`;
      const bytes = Buffer.from('Subject: hi\r\n\r\nbody\r\n');
      const stored = await store.put(key, bytes, 'message/rfc822');
      expect(stored.startsWith(key)).toBe(true);
      expect(await store.getBuffer(stored)).toEqual(bytes);
      expect(await collect(await store.getStream(stored))).toEqual(bytes);
      expect(await store.exists(stored)).toBe(true);
    });

    it('puts a stream of unknown length byte for byte (no chunk framing stored)', async () => {
      const key = `${prefix()}big.bin`;
      const bytes = randomBytes(3 * 1024 * 1024 + 17);
      const back = await store.getBuffer(await store.put(key, streamOf(bytes), 'application/octet-stream'));
      expect(back.byteLength).toBe(bytes.byteLength);
      expect(back.equals(bytes)).toBe(true);
    });

    it('puts a file byte for byte and leaves the file in place (one spool file, several keys)', async () => {
      const dir = await mkdtemp(join(tmpdir(), 'mailroom-putfile-'));
      try {
        const path = join(dir, 'message.eml');
        const bytes = randomBytes(9 * 1024 * 1024 + 5);
        await writeFile(path, bytes);
        const first = await store.putFile(`${prefix()}message.eml`, path, 'message/rfc822');
        const second = await store.putFile(`${prefix()}message.eml`, path, 'message/rfc822');
        expect((await store.getBuffer(first)).equals(bytes)).toBe(true);
        expect((await store.getBuffer(second)).equals(bytes)).toBe(true);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });

    it('fails putFile of a missing file and stores nothing', async () => {
      const key = `${prefix()}message.eml`;
      await expect(store.putFile(key, join(tmpdir(), `mailroom-missing-${randomUUID()}`), 'message/rfc822')).rejects.toThrow();
      expect(await store.exists(key)).toBe(false);
    });

    it('reads byte ranges (inclusive end, open end)', async () => {
      const key = await store.put(`${prefix()}range.txt`, Buffer.from('0123456789'), 'text/plain');
      expect((await collect(await store.getStream(key, { start: 2, end: 5 }))).toString()).toBe('2345');
      expect((await collect(await store.getStream(key, { start: 7 }))).toString()).toBe('789');
      // A one-byte range; not bytes 0-0, which s3rver (the S3 test server) reads as "to the end".
      expect((await collect(await store.getStream(key, { start: 3, end: 3 }))).toString()).toBe('3');
    });

    it('puts a key again: the key the second put returned reads the new content', async () => {
      const key = `${prefix()}a`;
      await store.put(key, Buffer.from('first'), 'text/plain');
      expect((await store.getBuffer(await store.put(key, Buffer.from('second'), 'text/plain'))).toString()).toBe('second');
    });

    it('deletes, and deleting a missing key is not an error', async () => {
      const key = await store.put(`${prefix()}gone.txt`, Buffer.from('x'), 'text/plain');
      await store.delete(key);
      expect(await store.exists(key)).toBe(false);
      await expect(store.delete(key)).resolves.toBeUndefined();
    });

    it('reports a missing object as NotFoundError on every read', async () => {
      const key = `${prefix()}missing.eml`;
      expect(await store.exists(key)).toBe(false);
      await expect(store.getBuffer(key)).rejects.toBeInstanceOf(NotFoundError);
      await expect(store.getStream(key)).rejects.toBeInstanceOf(NotFoundError);
      await expect(store.getStream(key, { start: 0, end: 3 })).rejects.toBeInstanceOf(NotFoundError);
    });

    it('lists by prefix with size and modification time, and nothing outside the prefix', async () => {
      const root = prefix();
      const before = Date.now() - 60_000;
      const message = await store.put(`${root}one/message.eml`, Buffer.from('12345'), 'message/rfc822');
      const attachment = await store.put(`${root}one/attachments/x/a.txt`, Buffer.from('abc'), 'text/plain');
      await store.put(`${root}two/message.eml`, Buffer.from('z'), 'message/rfc822');
      await store.put(`${root}onex/message.eml`, Buffer.from('z'), 'message/rfc822');
      expect(await listKeys(store, `${root}one/`)).toEqual([attachment, message].sort());
      expect(await listKeys(store, root)).toHaveLength(4);
      expect(await listKeys(store, `${prefix()}`)).toEqual([]);
      const infos = [];
      for await (const info of store.list(`${root}one/message`)) infos.push(info);
      expect(infos).toHaveLength(1);
      expect(infos[0]?.size).toBe(5);
      expect(infos[0]?.lastModified.getTime()).toBeGreaterThan(before);
    });
  });
}
