import { appendFile, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { NotFoundError } from '../../core/errors.js';
import { DiskBlobStore } from './disk.blob-store.js';
import { recordHead } from './segment-record.js';
import { parseSegmentKey, segmentKey } from './segment-key.js';

async function collect(stream: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString();
}

async function listed(store: DiskBlobStore, prefix = ''): Promise<string[]> {
  const keys: string[] = [];
  for await (const blob of store.list(prefix)) keys.push(blob.key);
  return keys.sort();
}

describe('DiskBlobStore segments (docs/decisions.md D72)', () => {
  let dir: string;
  let store: DiskBlobStore;
  const day = 'emails/t1/2026-11-28';

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'disk-segments-'));
    store = new DiskBlobStore(dir);
  });

  afterEach(async () => {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('appends the buffers of a folder to one segment file, private to the service user, each read back by the key put returned', async () => {
    const shared = Buffer.from(new SharedArrayBuffer(5));
    shared.write('hello');
    const keys = await Promise.all([
      store.put(`${day}/a.eml`, shared, 'message/rfc822'),
      store.put(`${day}/b.eml`, Buffer.from('a pooled buffer').subarray(2, 8), 'message/rfc822'),
      ...Array.from({ length: 50 }, (_, i) => store.put(`${day}/m${i}.eml`, Buffer.from(`message ${i}`), 'message/rfc822')),
    ]);
    expect(await store.getBuffer(keys[0] as string)).toEqual(Buffer.from('hello'));
    expect(await store.getBuffer(keys[1] as string)).toEqual(Buffer.from('pooled'));
    for (let i = 0; i < 50; i++) expect((await store.getBuffer(keys[i + 2] as string)).toString()).toBe(`message ${i}`);
    const files = await readdir(join(dir, day));
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/\.seg$/);
    expect((await stat(join(dir, day, files[0] as string))).mode & 0o777).toBe(0o600);
    expect((await stat(join(dir, day))).mode & 0o777).toBe(0o700);
    expect(await listed(store, `${day}/`)).toEqual([...keys].sort());
  });

  it('writes the puts of one event-loop turn together, past the most buffers one writev takes, each where its key says', async () => {
    await store.put(`${day}/first.eml`, Buffer.from('opens the segment'), 'message/rfc822');
    const bodies = Array.from({ length: 700 }, (_, i) => Buffer.alloc(1 + (i % 97), i % 251));
    const keys = await Promise.all(bodies.map((body, i) => store.put(`${day}/${i}.eml`, body, 'message/rfc822')));
    for (const [i, key] of keys.entries()) expect(await store.getBuffer(key)).toEqual(bodies[i]);
    expect(await readdir(join(dir, day))).toHaveLength(1);
  });

  it('reads ranges inside the record only, and an empty blob', async () => {
    const key = await store.put(`${day}/r.eml`, Buffer.from('0123456789'), 'text/plain');
    await store.put(`${day}/after.eml`, Buffer.from('NEXT RECORD'), 'text/plain');
    expect(await collect(await store.getStream(key, { start: 8, end: 20 }))).toBe('89');
    expect(await collect(await store.getStream(key, { start: 10 }))).toBe('');
    const empty = await store.put(`${day}/empty.eml`, Buffer.alloc(0), 'text/plain');
    expect((await store.getBuffer(empty)).byteLength).toBe(0);
    expect(await collect(await store.getStream(empty))).toBe('');
  });

  it('streams from the file the record was found in, even if the segment is removed before the stream is read', async () => {
    const key = await store.put(`${day}/s.eml`, Buffer.from('still here'), 'text/plain');
    const stream = await store.getStream(key);
    await rm(join(dir, day, parseSegmentKey(key)?.segment as string));
    expect(await collect(stream)).toBe('still here');
  });

  it('zeroes a deleted record in place: not readable, not listed, its bytes gone from the disk', async () => {
    const kept = await store.put(`${day}/kept.eml`, Buffer.from('Subject: stays'), 'message/rfc822');
    const gone = await store.put(`${day}/gone.eml`, Buffer.from('Subject: a secret code 123456'), 'message/rfc822');
    await store.delete(gone);
    await store.delete(gone);
    expect(await store.exists(gone)).toBe(false);
    await expect(store.getBuffer(gone)).rejects.toBeInstanceOf(NotFoundError);
    await expect(store.getStream(gone)).rejects.toBeInstanceOf(NotFoundError);
    expect(await listed(store)).toEqual([kept]);
    const [segment] = await readdir(join(dir, day));
    const bytes = await readFile(join(dir, day, segment as string));
    expect(bytes.includes('secret code')).toBe(false);
    expect(bytes.includes('gone.eml')).toBe(false);
    expect(bytes.includes('Subject: stays')).toBe(true);
  });

  it('answers NotFoundError for a key that points at no record of that name', async () => {
    const key = await store.put(`${day}/x.eml`, Buffer.from('x'), 'message/rfc822');
    const { segment, offset } = parseSegmentKey(key)!;
    for (const wrong of [
      segmentKey({ key: `${day}/y.eml`, segment, offset }),
      segmentKey({ key: `${day}/x.eml`, segment, offset: offset + 1 }),
      segmentKey({ key: `${day}/x.eml`, segment: 'missing-1.seg', offset }),
    ]) {
      expect(await store.exists(wrong), wrong).toBe(false);
      await expect(store.getBuffer(wrong)).rejects.toBeInstanceOf(NotFoundError);
      await expect(store.delete(wrong)).resolves.toBeUndefined();
    }
    expect((await store.getBuffer(key)).toString()).toBe('x');
  });

  it('lists up to a torn tail and never appends after a restart', async () => {
    const first = await store.put(`${day}/1.eml`, Buffer.from('one'), 'message/rfc822');
    const [segment] = await readdir(join(dir, day));
    // What a crash mid-append leaves: a header that promises more bytes than follow, then nothing.
    await appendFile(join(dir, day, segment as string), Buffer.concat([recordHead(`${day}/2.eml`, 1000, Date.now()), Buffer.from('partial')]));
    await store.close();
    const restarted = new DiskBlobStore(dir);
    try {
      const second = await restarted.put(`${day}/3.eml`, Buffer.from('three'), 'message/rfc822');
      expect(parseSegmentKey(second)?.segment).not.toBe(segment);
      expect(await listed(restarted)).toEqual([first, second].sort());
      expect((await restarted.getBuffer(first)).toString()).toBe('one');
    } finally {
      await restarted.close();
    }
  });

  it('starts a new segment past the rotation size', async () => {
    const small = new DiskBlobStore(dir, { segmentRotateBytes: 100 });
    try {
      for (let i = 0; i < 4; i++) await small.put(`${day}/${i}.eml`, Buffer.alloc(60, i), 'message/rfc822');
      expect(await readdir(join(dir, day))).toHaveLength(4);
      // Puts that arrive together while their folder's first segment is being created.
      const other = 'emails/t2/2026-11-28';
      const keys = await Promise.all(Array.from({ length: 6 }, (_, i) => small.put(`${other}/${i}.eml`, Buffer.alloc(60, i), 'message/rfc822')));
      expect(new Set(keys.map((key) => parseSegmentKey(key)?.segment)).size).toBe(6);
      expect(await readdir(join(dir, other))).toHaveLength(6);
      for (const [i, key] of keys.entries()) expect(await small.getBuffer(key)).toEqual(Buffer.alloc(60, i));
    } finally {
      await small.close();
    }
  });

  it('still reads and deletes a blob stored as its own file', async () => {
    await mkdir(join(dir, 'emails/t1/old-email'), { recursive: true });
    await writeFile(join(dir, 'emails/t1/old-email/message.eml'), 'Subject: old');
    expect((await store.getBuffer('emails/t1/old-email/message.eml')).toString()).toBe('Subject: old');
    expect(await listed(store, 'emails/t1/')).toEqual(['emails/t1/old-email/message.eml']);
    await store.delete('emails/t1/old-email/message.eml');
    expect(await readdir(dir)).toEqual([]);
    expect(await store.put('emails/t1/stream.eml', Readable.from([Buffer.from('streamed')]), 'message/rfc822')).toBe('emails/t1/stream.eml');
  });

  it('fails a put the file system refuses, and the next one succeeds', async () => {
    await writeFile(join(dir, 'file'), 'x');
    // A file where the folder should be: the open fails with ENOTDIR, not ENOENT, so no folder is made.
    await expect(store.put('file/inside.eml', Buffer.from('y'), 'message/rfc822')).rejects.toMatchObject({ code: 'ENOTDIR' });
    expect((await store.getBuffer(await store.put(`${day}/ok.eml`, Buffer.from('ok'), 'message/rfc822'))).toString()).toBe('ok');
  });

  it('flushes the puts in flight before the segments close, and the next put starts a new segment', async () => {
    const pending = store.put(`${day}/big.eml`, Buffer.alloc(8 * 1024 * 1024, 1), 'message/rfc822');
    await store.close();
    const big = await pending;
    expect((await store.getBuffer(big)).byteLength).toBe(8 * 1024 * 1024);
    const after = await store.put(`${day}/after.eml`, Buffer.from('z'), 'message/rfc822');
    expect(parseSegmentKey(after)?.segment).not.toBe(parseSegmentKey(big)?.segment);
    expect((await store.getBuffer(after)).toString()).toBe('z');
  });

  it('refuses a key that would leave the store or be read as a segment key', async () => {
    await expect(store.put('../outside.eml', Buffer.from('x'), 'message/rfc822')).rejects.toThrow(/escapes/);
    await expect(store.put(`${day}/a#b.eml`, Buffer.from('x'), 'message/rfc822')).rejects.toThrow(/escapes/);
  });
});
