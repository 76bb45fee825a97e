import { createHmac, timingSafeEqual } from 'node:crypto';

/** The claims of a dashboard session token (HS256 JWT, RFC 7519). */
export interface SessionClaims {
  /** The user id. */
  sub: string;
  /** The user's tenant. */
  tid: string;
  iat: number;
  exp: number;
  /** The refresh session the token was issued with: signing out of it ends the token's SSE streams. */
  sid?: string;
}

const HEADER = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url');
const SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/** A JWT has three dot-separated base64url parts; API keys (mr_…) never contain a dot. */
export const looksLikeJwt = (token: string): boolean => SHAPE.test(token);

const signature = (input: string, secret: Buffer): Buffer => createHmac('sha256', secret).update(input).digest();

export function signJwt(claims: SessionClaims, secret: Buffer): string {
  const payload = Buffer.from(JSON.stringify(claims)).toString('base64url');
  return `${HEADER}.${payload}.${signature(`${HEADER}.${payload}`, secret).toString('base64url')}`;
}

export type JwtProblem = 'malformed' | 'bad_signature' | 'expired';

/** The claims, or why the token is refused. Only our own header (HS256) is accepted: no algorithm negotiation. */
export function verifyJwt(token: string, secret: Buffer, nowSeconds: number): SessionClaims | JwtProblem {
  if (!looksLikeJwt(token)) return 'malformed';
  const [header, payload, sig] = token.split('.') as [string, string, string];
  if (header !== HEADER) return 'malformed';
  const expected = signature(`${header}.${payload}`, secret);
  const given = Buffer.from(sig, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'bad_signature';
  let claims: Partial<SessionClaims>;
  try {
    claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Partial<SessionClaims>;
  } catch {
    return 'malformed';
  }
  if (typeof claims.sub !== 'string' || typeof claims.tid !== 'string' || typeof claims.exp !== 'number' || typeof claims.iat !== 'number') return 'malformed';
  if (claims.sid !== undefined && typeof claims.sid !== 'string') return 'malformed';
  if (claims.exp <= nowSeconds) return 'expired';
  return claims as SessionClaims;
}
