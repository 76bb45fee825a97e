export interface ParsedAttachment {
  filename: string;
  contentType: string;
  content: Uint8Array;
  contentId: string | null;
  disposition: 'attachment' | 'inline';
}

export interface ParsedMessage {
  messageId: string | null;
  from: string;
  to: string[];
  cc: string[];
  bcc: string[];
  subject: string;
  /** ISO 8601 from the Date header, or null when it is missing or unparseable. */
  date: string | null;
  text: string | null;
  html: string | null;
  /** Lower-cased header names; repeated headers are joined with a newline. */
  headers: Record<string, string>;
  attachments: ParsedAttachment[];
}

/** Turns raw RFC 5322 bytes into fields. Never throws on malformed input: it parses what it can. */
export interface MimeParser {
  parse(raw: Buffer): Promise<ParsedMessage>;
}
