import { describe, expect, it } from 'vitest';
import { timeOrderedUuid } from './time-ordered-id.js';

describe('timeOrderedUuid', () => {
  it('is a version 7 UUID with the RFC 9562 variant', () => {
    const id = timeOrderedUuid();
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('carries the millisecond clock in its first 48 bits', () => {
    const now = Date.UTC(2026, 10, 25, 18, 0, 0, 123);
    const id = timeOrderedUuid(now);
    expect(Number.parseInt(id.slice(0, 8) + id.slice(9, 13), 16)).toBe(now);
  });

  it('sorts by creation time across milliseconds, as text', () => {
    const ids = [0, 1, 255, 256, 65_536, Date.now()].map((ms) => timeOrderedUuid(ms));
    expect([...ids].sort()).toEqual(ids);
  });

  it('counts up within one millisecond, past its 12-bit counter, so ids made together sort in creation order', () => {
    const now = Date.now();
    const ids = Array.from({ length: 5000 }, () => timeOrderedUuid(now));
    expect([...ids].sort()).toEqual(ids);
  });

  it('keeps counting up when the clock steps back a little', () => {
    const now = Date.now() + 10_000;
    const first = timeOrderedUuid(now);
    const after = timeOrderedUuid(now - 5);
    expect([first, after].sort()).toEqual([first, after]);
  });

  it('differs within one millisecond', () => {
    const now = Date.now();
    expect(new Set(Array.from({ length: 1000 }, () => timeOrderedUuid(now))).size).toBe(1000);
  });

  it('never reuses random digits, across refills of its random pool', () => {
    const tails = Array.from({ length: 5000 }, () => timeOrderedUuid().slice(19));
    expect(new Set(tails).size).toBe(5000);
  });
});
