import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { startSilentDnsServer } from '../../../test/helpers/dns-server.js';
import { UnavailableError } from '../../core/errors.js';
import { DEFAULT_EXTRACTION_LIMITS } from '../../core/extract.js';
import { emailSearchVector } from '../../core/search-vector.js';
import { transferablesOf } from './analyzer-protocol.js';
import { WorkerPoolMessageAnalyzer } from './worker-pool.message-analyzer.js';

const raw = Buffer.from('From: a@example.com\r\nTo: b@example.com\r\nSubject: hi\r\n\r\nYour code is 482913.\r\n');
const input = { raw, clientIp: '127.0.0.1', helo: 'client.example', mailFrom: 'a@example.com' };
const config = (servers: string[], timeoutMs = 100, searchVectors = false) => ({ dns: { servers, timeoutMs }, mxHost: 'mx.example', authDeadlineMs: timeoutMs * 3, extraction: DEFAULT_EXTRACTION_LIMITS, searchVectors });

/** The pool's threads, to stop one the way a crash would. */
const slotsOf = (pool: WorkerPoolMessageAnalyzer) => (pool as unknown as { slots: Array<{ worker: Worker; ready: boolean }> }).slots;

describe('WorkerPoolMessageAnalyzer', () => {
  let pool: WorkerPoolMessageAnalyzer | undefined;
  afterEach(() => pool?.close());

  it('answers with the parse, the auth results and the extracted code', async () => {
    pool = new WorkerPoolMessageAnalyzer(1, config(['127.0.0.1:9']), () => undefined);
    const analysis = await pool.analyze(input);
    expect(analysis.parsed).toMatchObject({ from: 'a@example.com', subject: 'hi' });
    expect(analysis.auth.authSummary).toMatch(/^SPF: \w+, DKIM: none, DMARC: \w+$/);
    expect(analysis.extracted?.otp).toBe('482913');
  });

  it('builds each copy\'s search vector when configured for PostgreSQL, and none otherwise', async () => {
    const searchCopies = [
      { deliveryAddresses: ['b@example.com', 'hidden@example.com'], withBody: true },
      { deliveryAddresses: ['other@tenant.example'], withBody: false },
    ];
    pool = new WorkerPoolMessageAnalyzer(1, config(['127.0.0.1:9'], 100, true), () => undefined);
    const analysis = await pool.analyze({ ...input, searchCopies });
    const common = { subject: 'hi', from: 'a@example.com', to: ['b@example.com'], cc: [] };
    expect(analysis.searchVectors).toEqual([
      emailSearchVector({ ...common, bcc: ['hidden@example.com'], textBody: 'Your code is 482913.\n' }),
      emailSearchVector({ ...common, bcc: ['other@tenant.example'], textBody: null }),
    ]);
    expect(analysis.searchVectors?.[0]).toContain("'482913':");
    await pool.close();
    pool = new WorkerPoolMessageAnalyzer(1, config(['127.0.0.1:9']), () => undefined);
    expect((await pool.analyze({ ...input, searchCopies })).searchVectors).toBeUndefined();
  });

  it('reads a spooled message from its file in the worker: the same analysis, and the file is left in place', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mailroom-spooled-'));
    try {
      const path = join(dir, 'message.eml');
      await writeFile(path, raw);
      pool = new WorkerPoolMessageAnalyzer(1, config(['127.0.0.1:9']), () => undefined);
      const analysis = await pool.analyze({ ...input, raw: { path, byteLength: raw.byteLength } });
      expect(analysis.parsed).toMatchObject({ from: 'a@example.com', subject: 'hi' });
      expect(analysis.extracted?.otp).toBe('482913');
      expect(await readFile(path)).toEqual(raw);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('fails only the messages of a worker that dies, with a retryable error, and replaces it', async () => {
    const silent = await startSilentDnsServer();
    const errors: unknown[] = [];
    try {
      const analyzer = new WorkerPoolMessageAnalyzer(1, config([silent.address], 500), (error) => errors.push(error));
      pool = analyzer;
      await expect.poll(() => slotsOf(analyzer)[0]?.ready, { timeout: 10_000 }).toBe(true);
      // Its SPF lookup waits on a DNS server that never answers, so the analysis is still running.
      const inFlight = analyzer.analyze(input);
      await expect.poll(() => silent.received()).toBeGreaterThan(0);
      await slotsOf(analyzer)[0]?.worker.terminate();
      await expect(inFlight).rejects.toBeInstanceOf(UnavailableError);
      expect(slotsOf(analyzer)).toHaveLength(1);
      const next = await analyzer.analyze(input);
      expect(next.parsed.subject).toBe('hi');
      expect(next.auth.spfResult).toBe('temperror');
      expect(errors).toEqual([]);
    } finally {
      await silent.close();
    }
  });

  it('refuses work once closed, as a retryable error', async () => {
    pool = new WorkerPoolMessageAnalyzer(1, config(['127.0.0.1:9']), () => undefined);
    await pool.close();
    await expect(pool.analyze(input)).rejects.toBeInstanceOf(UnavailableError);
  });
});

describe('transferablesOf', () => {
  const analysisWith = (contents: Uint8Array[]) =>
    ({ parsed: { attachments: contents.map((content) => ({ content })) } }) as unknown as Parameters<typeof transferablesOf>[0];

  it('moves buffers an attachment owns whole, once each, and copies views into shared ones', () => {
    const owned = new Uint8Array(16);
    const pooled = Buffer.from('small'); // a view into Node's shared Buffer pool
    expect(transferablesOf(analysisWith([owned, owned, pooled]))).toEqual([owned.buffer]);
  });
});
