import { createHmac, randomBytes } from 'node:crypto';

/** Prefix of every webhook signing secret, so a leaked one is recognisable by secret scanners. */
export const WEBHOOK_SECRET_PREFIX = 'whsec_';
const SECRET_BYTES = 32;

export function generateWebhookSecret(): string {
  return WEBHOOK_SECRET_PREFIX + randomBytes(SECRET_BYTES).toString('base64url');
}

/** What later reads show: the prefix (of generated secrets) and the last four characters, enough to tell secrets apart. */
export function maskSecret(secret: string): string {
  const prefix = secret.startsWith(WEBHOOK_SECRET_PREFIX) ? WEBHOOK_SECRET_PREFIX : '';
  return `${prefix}…${secret.slice(-4)}`;
}

/**
 * Spec 5.8: lowercase hex HMAC-SHA256 of the exact body bytes. The key is the whole secret string
 * (prefix included) as UTF-8, so receivers use the value they were shown without decoding it.
 */
export function signBody(secret: string, body: Buffer | string): string {
  return createHmac('sha256', secret).update(body).digest('hex');
}

/**
 * Binds the delivery id and timestamp to the body, so a receiver that checks it can reject a
 * captured request replayed later (the body signature alone cannot tell a replay from the original).
 */
export function signTimestamped(secret: string, deliveryId: string, timestamp: number, body: Buffer | string): string {
  return createHmac('sha256', secret).update(`${deliveryId}.${timestamp}.`).update(body).digest('hex');
}
