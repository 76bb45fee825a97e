import { describe, expect, it } from 'vitest';
import { looksLikeJwt, signJwt, verifyJwt } from './jwt.js';

const secret = Buffer.from('a'.repeat(32));
const claims = { sub: 'user-1', tid: 'tenant-1', iat: 1000, exp: 1900 };

describe('session JWT (HS256)', () => {
  it('round-trips its claims until exp', () => {
    const token = signJwt(claims, secret);
    expect(looksLikeJwt(token)).toBe(true);
    expect(verifyJwt(token, secret, 1899)).toEqual(claims);
    expect(verifyJwt(token, secret, 1900)).toBe('expired');
  });

  it('refuses another secret, a changed payload, another algorithm and junk', () => {
    const token = signJwt(claims, secret);
    const [header, , signature] = token.split('.') as [string, string, string];
    const payload = Buffer.from(JSON.stringify({ ...claims, tid: 'tenant-2' })).toString('base64url');
    expect(verifyJwt(token, Buffer.from('b'.repeat(32)), 1000)).toBe('bad_signature');
    expect(verifyJwt(`${header}.${payload}.${signature}`, secret, 1000)).toBe('bad_signature');
    const none = Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url');
    expect(verifyJwt(`${none}.${payload}.${signature}`, secret, 1000)).toBe('malformed');
    expect(verifyJwt('mr_notajwt', secret, 1000)).toBe('malformed');
    expect(looksLikeJwt('mr_abc-def_ghi')).toBe(false);
  });

  it('refuses a validly signed token whose claims are incomplete', () => {
    const token = signJwt({ sub: 'user-1' } as never, secret);
    expect(verifyJwt(token, secret, 0)).toBe('malformed');
  });
});
