import type { MessageBytes } from '../core/message-bytes.js';
import type { SpamReport } from '../core/spam.js';

/** One message as the filter sees it: the raw bytes and the SMTP envelope. */
export interface SpamFilterInput {
  raw: MessageBytes;
  clientIp: string;
  helo: string;
  mailFrom: string;
  recipients: string[];
}

/**
 * A spam filter run as its own service (rspamd). `check` rejects with SpamFilterUnavailableError when
 * the filter cannot give a verdict within `deadlineMs` (down, slow, or an answer it cannot read).
 */
export interface SpamFilter {
  check(input: SpamFilterInput, deadlineMs: number): Promise<SpamReport>;
  close(): void;
}

export class SpamFilterUnavailableError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'SpamFilterUnavailableError';
  }
}
