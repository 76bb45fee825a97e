import type { OutboundMessage } from '../core/account-mail.js';

export type { OutboundMessage };

/**
 * The one seam through which Mailroom sends mail of its own (docs/dashboard.md). Resolves once the
 * relay accepted the message; rejects when it did not.
 */
export interface OutboundMail {
  send(message: OutboundMessage): Promise<void>;
  close(): void;
}
