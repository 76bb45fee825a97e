/**
 * A received message kept in a spool file instead of memory (docs/security.md, "Memory"). Whoever
 * wrote the file deletes it once the message is stored or refused; readers never consume it.
 */
export interface SpooledMessage {
  path: string;
  byteLength: number;
}

/** A message's raw bytes: in memory (small messages) or in a spool file (large ones). */
export type MessageBytes = Buffer | SpooledMessage;

export const isSpooled = (raw: MessageBytes): raw is SpooledMessage => !Buffer.isBuffer(raw);
