import type { SMTPServerOptions } from 'smtp-server';
import { SMTPConnection } from 'smtp-server/lib/smtp-connection.js';
import { greetingDelayOption } from '../../src/transports/smtp/greeting-delay.js';

/** smtp-server as the bench's servers run it: no AUTH or STARTTLS, no reverse lookup, no log; the rest as shipped (its 100 ms greeting pause included). */
export const PLAIN_SMTP_OPTIONS: SMTPServerOptions = {
  authOptional: true,
  disabledCommands: ['AUTH', 'STARTTLS'],
  disableReverseLookup: true,
  logger: false,
};

/**
 * PLAIN_SMTP_OPTIONS with the greeting after `delayMs` instead of the library's 100 ms, through
 * Mailroom's own greeting option, installed on the bench servers' smtp-server: bench/node_modules'
 * copy (maildev's), not the one src/ imports and patches.
 */
export function plainSmtpOptionsGreetingAfter(delayMs: number): SMTPServerOptions {
  return { ...PLAIN_SMTP_OPTIONS, ...greetingDelayOption(delayMs, SMTPConnection) };
}
