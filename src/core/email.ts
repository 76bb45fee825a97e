import type { SpamFields } from './spam.js';
import type { AuthResult } from './vocab.js';

export interface AttachmentMeta {
  id: string;
  filename: string;
  contentType: string;
  size: number;
  contentId: string | null;
  disposition: 'attachment' | 'inline';
}

export interface AuthResults {
  spfResult: AuthResult;
  dkimResult: AuthResult;
  dmarcResult: AuthResult;
  authSummary: string;
  authDiagnostics: AuthDiagnostics;
}

/** Why each check came out as it did, so a user can see why SPF or DMARC failed. */
export interface AuthDiagnostics {
  spf: { clientIp: string | null; domain: string | null; record: string | null; explanation: string | null };
  dkim: Array<{ domain: string | null; selector: string | null; result: AuthResult; aligned: boolean; explanation: string | null }>;
  dmarc: { domain: string | null; policy: string | null; spfAligned: boolean; dkimAligned: boolean; explanation: string | null };
}

/** The spam fields (spamCheck, spamScore, …) come from SpamFields: docs/spam.md. */
export interface Email extends SpamFields {
  id: string;
  tenantId: string;
  environmentId: string;
  baseEmailId: string;
  messageId: string | null;
  from: string;
  to: string[];
  cc: string[];
  bcc: string[];
  subject: string;
  date: string;
  read: boolean;
  hasAttachments: boolean;
  attachments: AttachmentMeta[];
  snippet: string;
  spfResult: AuthResult;
  dkimResult: AuthResult;
  dmarcResult: AuthResult;
  authSummary: string;
  authDiagnostics: AuthDiagnostics;
  size: number;
  remoteAddress: string | null;
  /** The SMTP envelope: MAIL FROM ('' for a null sender) and the HELO/EHLO name; null when not recorded. */
  envelope: { mailFrom: string | null; helo: string | null };
  createdAt: string;
  updatedAt: string;
}

export interface EmailContent {
  html: string | null;
  text: string | null;
  headers: Record<string, string>;
}

const SNIPPET_LENGTH = 100;

/** First ~100 characters of the text, whitespace folded; cut at a word boundary when one is near. */
export function makeSnippet(text: string): string {
  const folded = foldedStart(text);
  if (folded.length <= SNIPPET_LENGTH) return folded;
  const cut = folded.slice(0, SNIPPET_LENGTH);
  const lastSpace = cut.lastIndexOf(' ');
  return (lastSpace > SNIPPET_LENGTH * 0.7 ? cut.slice(0, lastSpace) : cut) + '…';
}

/**
 * The text with its whitespace folded and trimmed, or enough of its start to cut a snippet from
 * (more than SNIPPET_LENGTH + 1 characters): folding a whole 10 KB body on the main thread cost
 * more than the rest of the snippet (docs/decisions.md D40). A folded prefix of the text is a
 * prefix of the folded text, and past SNIPPET_LENGTH + 1 characters it cannot be all that is left.
 */
function foldedStart(text: string): string {
  for (let end = SNIPPET_LENGTH * 4; end < text.length; end *= 4) {
    const start = text.slice(0, end).replace(/\s+/g, ' ').trimStart();
    if (start.length > SNIPPET_LENGTH + 1) return start;
  }
  return text.replace(/\s+/g, ' ').trim();
}

/** "SPF: pass, DKIM: fail, DMARC: none": the human-readable line of spec 2.3. */
export function makeAuthSummary(spf: AuthResult, dkim: AuthResult, dmarc: AuthResult): string {
  return `SPF: ${spf}, DKIM: ${dkim}, DMARC: ${dmarc}`;
}
