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
  const folded = text.replace(/\s+/g, ' ').trim();
  if (folded.length <= SNIPPET_LENGTH) return folded;
  const cut = folded.slice(0, SNIPPET_LENGTH);
  const lastSpace = cut.lastIndexOf(' ');
  return (lastSpace > SNIPPET_LENGTH * 0.7 ? cut.slice(0, lastSpace) : cut) + '…';
}

/** "SPF: pass, DKIM: fail, DMARC: none": the human-readable line of spec 2.3. */
export function makeAuthSummary(spf: AuthResult, dkim: AuthResult, dmarc: AuthResult): string {
  return `SPF: ${spf}, DKIM: ${dkim}, DMARC: ${dmarc}`;
}
