import { describe, expect, it } from 'vitest';
import { ExpiringCache } from './expiring-cache.js';

describe('ExpiringCache', () => {
  it('reads once within the time to live, again after it, and shares a read in flight', async () => {
    const cache = new ExpiringCache<string, number>(1_000, 10);
    let reads = 0;
    const load = () => Promise.resolve(++reads);
    const [a, b] = await Promise.all([cache.get('k', load, 0), cache.get('k', load, 0)]);
    expect([a, b, await cache.get('k', load, 999)]).toEqual([1, 1, 1]);
    expect(await cache.get('k', load, 1_000)).toBe(2);
  });

  it('keeps no failed read, and a set value replaces the cached one', async () => {
    const cache = new ExpiringCache<string, number>(1_000, 10);
    await expect(cache.get('k', () => Promise.reject(new Error('down')), 0)).rejects.toThrow('down');
    expect(await cache.get('k', () => Promise.resolve(7), 1)).toBe(7);
    await cache.set('k', Promise.resolve(8), 2);
    expect(await cache.get('k', () => Promise.resolve(9), 3)).toBe(8);
  });

  it('starts over at its size bound', async () => {
    const cache = new ExpiringCache<number, number>(1_000, 2);
    await cache.get(1, () => Promise.resolve(1), 0);
    await cache.get(2, () => Promise.resolve(2), 0);
    await cache.get(3, () => Promise.resolve(3), 0);
    expect(await cache.get(1, () => Promise.resolve(10), 0)).toBe(10);
  });
});
