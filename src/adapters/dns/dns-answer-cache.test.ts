import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDnsServer, startSilentDnsServer, type TestDnsServer } from '../../../test/helpers/dns-server.js';
import { cachingDnsResolver, resultCacheOf, type TimedAnswer } from './dns-answer-cache.js';
import { createCachingNodeDnsResolver } from './node.dns-resolver.js';

const LIMITS = { maxTtlMs: 60_000, negativeTtlMs: 15_000, maxEntries: 3 };
const dnsError = (code: string) => Object.assign(new Error(`queryTxt ${code} example.com`), { code, syscall: 'queryTxt', hostname: 'example.com' });

/** A cache over a scripted lookup and a clock the test moves. */
function harness(answer: (name: string, rrtype: string) => Promise<TimedAnswer>) {
  let clock = 0;
  const asked: string[] = [];
  const resolve = cachingDnsResolver(
    (name, rrtype) => {
      asked.push(`${name}/${rrtype}`);
      return answer(name, rrtype);
    },
    LIMITS,
    () => clock,
  );
  return { resolve, asked, advance: (ms: number) => (clock += ms) };
}

describe('cachingDnsResolver', () => {
  it('answers a repeated question from the cache until the cap, each caller with its own copy', async () => {
    const { resolve, asked, advance } = harness(async () => ({ records: [[ 'v=spf1 -all' ]] }));
    const first = (await resolve('Example.com', 'TXT')) as string[][];
    first[0]?.push('changed by a caller');
    advance(59_999);
    expect(await resolve('example.com', 'TXT')).toEqual([['v=spf1 -all']]);
    expect(asked).toEqual(['Example.com/TXT']);
    advance(1);
    await resolve('example.com', 'TXT');
    expect(asked).toHaveLength(2);
  });

  it('keeps an answer no longer than its TTL when the resolver gives one', async () => {
    const { resolve, asked, advance } = harness(async () => ({ records: ['192.0.2.1'], ttlSeconds: 5 }));
    await resolve('mx.example.com', 'A');
    advance(4_999);
    await resolve('mx.example.com', 'A');
    expect(asked).toHaveLength(1);
    advance(1);
    await resolve('mx.example.com', 'A');
    expect(asked).toHaveLength(2);
  });

  it('keeps "no such name" and "no records" for the negative TTL, and throws a fresh error each time', async () => {
    const { resolve, asked, advance } = harness(async (name) => Promise.reject(dnsError(name === 'gone.example' ? 'ENOTFOUND' : 'ENODATA')));
    const first = await resolve('gone.example', 'TXT').catch((error: unknown) => error);
    const second = await resolve('gone.example', 'TXT').catch((error: unknown) => error);
    expect(second).toMatchObject({ code: 'ENOTFOUND', syscall: 'queryTxt', message: 'queryTxt ENOTFOUND example.com' });
    expect(second).not.toBe(first);
    await expect(resolve('empty.example', 'MX')).rejects.toMatchObject({ code: 'ENODATA' });
    expect(asked).toEqual(['gone.example/TXT', 'empty.example/MX']);
    advance(15_000);
    await expect(resolve('gone.example', 'TXT')).rejects.toMatchObject({ code: 'ENOTFOUND' });
    expect(asked).toHaveLength(3);
  });

  it('does not keep timeouts or server failures', async () => {
    const { resolve, asked } = harness(async () => Promise.reject(dnsError('ETIMEOUT')));
    await expect(resolve('slow.example', 'TXT')).rejects.toMatchObject({ code: 'ETIMEOUT' });
    await expect(resolve('slow.example', 'TXT')).rejects.toMatchObject({ code: 'ETIMEOUT' });
    expect(asked).toHaveLength(2);
  });

  it('sends one query for concurrent asks of the same name and type, and gives each caller its own error', async () => {
    let fail!: (error: Error) => void;
    const { resolve, asked } = harness(() => new Promise((_, reject) => (fail = reject)));
    const waiting = [resolve('a.example', 'TXT'), resolve('A.EXAMPLE', 'TXT')].map((p) => p.catch((error: unknown) => error));
    fail(dnsError('ESERVFAIL'));
    const [first, second] = await Promise.all(waiting);
    expect(asked).toEqual(['a.example/TXT']);
    expect(first).toMatchObject({ code: 'ESERVFAIL' });
    expect(second).toMatchObject({ code: 'ESERVFAIL' });
    expect(second).not.toBe(first);
  });

  it('holds at most maxEntries answers, dropping the oldest', async () => {
    const { resolve, asked } = harness(async (name) => ({ records: [[name]] }));
    for (const name of ['1.example', '2.example', '3.example', '4.example']) await resolve(name, 'TXT');
    await resolve('4.example', 'TXT');
    await resolve('2.example', 'TXT');
    expect(asked).toHaveLength(4);
    await resolve('1.example', 'TXT');
    expect(asked).toHaveLength(5);
  });
});

describe('resultCache', () => {
  /** What a check worked out from the TXT of a and the A of b, and how often it ran. */
  function derivedCheck(answer: (name: string, rrtype: string) => Promise<TimedAnswer>) {
    const { resolve, asked, advance } = harness(answer);
    const results = resolve.resultCache<string>();
    let runs = 0;
    const check = () =>
      results('key', async (lookup) => {
        runs++;
        return JSON.stringify([await lookup('a.example', 'TXT').catch((error: NodeJS.ErrnoException) => error.code), await lookup('b.example', 'A')]);
      });
    return { check, asked, advance, runs: () => runs };
  }

  it('keeps a result until the first answer it read expires, then works it out from fresh answers', async () => {
    let address = '192.0.2.1';
    const { check, advance, runs } = derivedCheck(async (_name, rrtype) => (rrtype === 'A' ? { records: [address], ttlSeconds: 5 } : { records: [['v=spf1 -all']] }));
    expect(await check()).toBe('[[["v=spf1 -all"]],["192.0.2.1"]]');
    address = '192.0.2.2';
    advance(4_999);
    expect(await check()).toBe('[[["v=spf1 -all"]],["192.0.2.1"]]');
    expect(runs()).toBe(1);
    advance(1);
    expect(await check()).toBe('[[["v=spf1 -all"]],["192.0.2.2"]]');
    expect(runs()).toBe(2);
  });

  it('keeps a result that read a negative answer for the negative TTL', async () => {
    const { check, advance, runs } = derivedCheck(async (_name, rrtype) => (rrtype === 'A' ? { records: ['192.0.2.1'] } : Promise.reject(dnsError('ENOTFOUND'))));
    expect(await check()).toBe('["ENOTFOUND",["192.0.2.1"]]');
    advance(14_999);
    await check();
    expect(runs()).toBe(1);
    advance(1);
    await check();
    expect(runs()).toBe(2);
  });

  it('does not keep a result that read a failure it may not keep, nor one whose check threw', async () => {
    const { check, runs } = derivedCheck(async (_name, rrtype) => (rrtype === 'A' ? { records: ['192.0.2.1'] } : Promise.reject(dnsError('ETIMEOUT'))));
    expect(await check()).toBe('["ETIMEOUT",["192.0.2.1"]]');
    await check();
    expect(runs()).toBe(2);
    const { resolve } = harness(async () => ({ records: [] }));
    const results = resolve.resultCache<string>();
    let attempts = 0;
    const failing = () => results('key', async () => Promise.reject(new Error(`attempt ${++attempts}`)));
    await expect(failing()).rejects.toThrow('attempt 1');
    await expect(failing()).rejects.toThrow('attempt 2');
  });

  it('works the result out every time over a resolver without an answer cache', async () => {
    let runs = 0;
    const results = resultCacheOf<number>(async () => [['v=spf1 -all']]);
    await results('key', async () => ++runs);
    expect(await results('key', async () => ++runs)).toBe(2);
  });
});

describe('createCachingNodeDnsResolver (against a DNS server on loopback)', () => {
  let dns: TestDnsServer;
  beforeAll(async () => {
    dns = await startDnsServer({ 'sender.example': { TXT: ['v=spf1 ip4:127.0.0.1 -all'], A: ['127.0.0.1'] } });
  });
  afterAll(() => dns?.close());

  it('asks the server once for answers it may keep, in the shapes mailauth reads', async () => {
    const resolve = createCachingNodeDnsResolver([dns.address], 1000);
    const before = dns.queries.length;
    for (let i = 0; i < 3; i++) {
      expect(await resolve('sender.example', 'TXT')).toEqual([['v=spf1 ip4:127.0.0.1 -all']]);
      expect(await resolve('sender.example', 'A')).toEqual(['127.0.0.1']);
      await expect(resolve('_dmarc.sender.example', 'TXT')).rejects.toMatchObject({ code: 'ENOTFOUND' });
    }
    expect(dns.queries.slice(before)).toEqual(['sender.example/TXT', 'sender.example/A', '_dmarc.sender.example/TXT']);
  });

  it('times out against a server that never answers, and asks again next time', async () => {
    const silent = await startSilentDnsServer();
    try {
      const resolve = createCachingNodeDnsResolver([silent.address], 100);
      await expect(resolve('sender.example', 'TXT')).rejects.toMatchObject({ code: 'ETIMEOUT' });
      await expect(resolve('sender.example', 'TXT')).rejects.toMatchObject({ code: 'ETIMEOUT' });
      expect(silent.received()).toBe(2);
    } finally {
      await silent.close();
    }
  });
});
