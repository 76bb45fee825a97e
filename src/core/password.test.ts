import { describe, expect, it } from 'vitest';
import { hashPassword, verifyPassword } from './password.js';

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
});
