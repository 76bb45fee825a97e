import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { generateWebhookSecret, maskSecret, signBody, signTimestamped } from './webhook-signature.js';

describe('webhook signatures', () => {
  it('makes whsec_ secrets with at least 32 random bytes', () => {
    const secret = generateWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(secret.slice(6), 'base64url').length).toBe(32);
    expect(generateWebhookSecret()).not.toBe(secret);
    expect(maskSecret(secret)).toBe(`whsec_…${secret.slice(-4)}`);
  });

  it('signs the exact body bytes as lowercase hex HMAC-SHA256 keyed with the whole secret', () => {
    const body = Buffer.from('{"id":"x"}');
    expect(signBody('whsec_k', body)).toBe(createHmac('sha256', 'whsec_k').update(body).digest('hex'));
    expect(signBody('whsec_k', body)).toMatch(/^[0-9a-f]{64}$/);
    expect(signTimestamped('whsec_k', 'd1', 1700000000, body)).toBe(createHmac('sha256', 'whsec_k').update('d1.1700000000.{"id":"x"}').digest('hex'));
  });
});
