import { describe, expect, it } from 'vitest';
import { ConnectionGate } from './connection-gate.js';

describe('ConnectionGate', () => {
  it('refuses past the per-IP and total limits and admits again after a release (released once only)', () => {
    const gate = new ConnectionGate(3, 2);
    const a1 = gate.admit('a');
    const a2 = gate.admit('a');
    expect(gate.admit('a')).toEqual({ refused: 'per-ip' });
    const b1 = gate.admit('b');
    expect(gate.admit('c')).toEqual({ refused: 'total' });
    if (!('release' in a1) || !('release' in a2) || !('release' in b1)) throw new Error('expected admissions');
    a1.release();
    a1.release();
    expect(gate.size).toBe(2);
    expect('release' in gate.admit('c')).toBe(true);
    expect(gate.admit('a')).toEqual({ refused: 'total' });
  });
});
