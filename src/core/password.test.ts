import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { hashPassword, passwordProblem, verifyPassword } from './password.js';

describe('scrypt password hashes', () => {
  it('verifies the right password only, with a fresh salt per hash', async () => {
    const hash = await hashPassword('correct horse battery');
    expect(hash).toMatch(/^scrypt\$32768\$8\$1\$[\w-]{22}\$[\w-]{43}$/);
    expect(await verifyPassword('correct horse battery', hash)).toBe(true);
    expect(await verifyPassword('correct horse batterY', hash)).toBe(false);
    expect(await hashPassword('correct horse battery')).not.toBe(hash);
  });

  it('refuses a stored value that is not one of its hashes', async () => {
    expect(await verifyPassword('x', 'plain-text')).toBe(false);
    expect(await verifyPassword('x', 'scrypt$1$1$1$$')).toBe(false);
  });

  it('hashes two at a time at most, so a burst leaves the libuv thread pool to file and DNS work', async () => {
    let done = 0;
    const burst = Array.from({ length: 16 }, () => hashPassword('correct horse battery').then(() => (done += 1)));
    await readFile(import.meta.filename);
    const doneWhenFileRead = done;
    await Promise.all(burst);
    // Without the queue the read waits behind the 16 hashes in the pool (4 threads): about 13 are done by then.
    expect(doneWhenFileRead).toBeLessThan(6);
  });
});

describe('password rules', () => {
  it('refuses short, overlong and common passwords (any case)', () => {
    expect(passwordProblem('short')).toBe('length');
    expect(passwordProblem('x'.repeat(201))).toBe('length');
    expect(passwordProblem('password')).toBe('common');
    expect(passwordProblem('PassWord')).toBe('common');
    expect(passwordProblem('sunshine')).toBe('common');
    expect(passwordProblem('correct horse battery')).toBeUndefined();
  });
});
