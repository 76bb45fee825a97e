import type { AuthResults } from '../core/email.js';

export interface AuthenticationInput {
  raw: Buffer;
  clientIp: string;
  helo: string;
  mailFrom: string;
}

/**
 * SPF, DKIM and DMARC for one message. Never throws and never hangs: lookups that fail or time out
 * give temperror, so a slow DNS server cannot stall an SMTP session.
 */
export interface MailAuthenticator {
  authenticate(input: AuthenticationInput): Promise<AuthResults>;
}
