import { normaliseAddress } from '../../core/address.js';
import type { SmtpReply } from './smtp-replies.js';

export const TOO_MANY_RECIPIENTS: SmtpReply = { code: 452, message: '4.5.3 Too many recipients' };

/**
 * The distinct recipients of one transaction. A repeated RCPT TO is accepted again but counted and
 * stored once; a new address past `max` is refused (RFC 5321 §4.5.3.1.10: 452, the sender sends the
 * rest in another transaction).
 */
export function admitRecipient(accepted: readonly string[], address: string, max: number): 'new' | 'duplicate' | 'full' {
  const normalised = normaliseAddress(address);
  if (accepted.includes(normalised)) return 'duplicate';
  return accepted.length >= max ? 'full' : 'new';
}
