/** A mail Mailroom itself sends to a dashboard user (verification, password reset). */
export interface OutboundMessage {
  to: string;
  subject: string;
  text: string;
}

/**
 * The one seam through which Mailroom sends mail of its own (docs/dashboard.md). Resolves once the
 * relay accepted the message; rejects when it did not.
 */
export interface OutboundMail {
  send(message: OutboundMessage): Promise<void>;
  close(): void;
}
