import { z } from 'zod';
import type { MailroomClient } from '../../client/index.js';
import { tool } from './tool.js';

const emailId = z.string().min(1).describe('The email id');
const page = {
  limit: z.number().int().min(1).max(100).optional().describe('Emails per page (default 20, max 100)'),
  cursor: z.string().min(1).optional().describe('nextCursor from the previous answer, for the next page'),
};
const window = {
  inboxId: z.string().min(1).optional().describe('Only emails delivered to this inbox'),
  createdAfter: z.string().optional().describe('ISO 8601 date or date-time: received at or after'),
  createdBefore: z.string().optional().describe('ISO 8601 date or date-time: received at or before'),
};
const search = {
  from: z.string().max(500).optional().describe('Sender contains this (case-insensitive)'),
  to: z.string().max(500).optional().describe('A to, cc or bcc address contains this (case-insensitive)'),
  subject: z.string().max(500).optional().describe('Subject contains this (case-insensitive)'),
  read: z.boolean().optional().describe('Only read (true) or unread (false) emails'),
};

type EmailQuery = Partial<Record<'inboxId' | 'createdAfter' | 'createdBefore' | 'cursor' | 'from' | 'to' | 'subject', string>> & { limit?: number; read?: boolean };

/** Tool arguments → GET /emails query (the filter.* spellings the route declares). */
function listQuery(args: EmailQuery) {
  return {
    inboxId: args.inboxId,
    limit: args.limit,
    cursor: args.cursor,
    from: args.from,
    to: args.to,
    subject: args.subject,
    'filter.read': args.read,
    'filter.createdAfter': args.createdAfter,
    'filter.createdBefore': args.createdBefore,
  };
}

async function base64Of(blob: unknown): Promise<string> {
  return Buffer.from(await (blob as Blob).arrayBuffer()).toString('base64');
}

async function attachmentOf(client: MailroomClient, id: string, attachmentId: string) {
  const email = await client.emails.get(id);
  const meta = email.attachments.find((a) => a.id === attachmentId);
  const content = await client.emails.attachment(id, attachmentId);
  return { ...meta, emailId: id, contentBase64: await base64Of(content) };
}

export const EMAIL_TOOLS = [
  tool('list_emails', 'List received emails, newest first; page with limit and the returned nextCursor', { ...window, ...page }, (client, args) => client.emails.list(listQuery(args))),
  tool(
    'search_emails',
    'Find emails by sender, recipient, subject (substring, case-insensitive), read state, inbox and date range',
    { ...search, ...window, ...page },
    (client, args) => client.emails.list(listQuery(args)),
  ),
  tool('get_email', 'One email with its text and HTML bodies and headers', { emailId }, async (client, { emailId: id }) => {
    const [email, content] = await Promise.all([client.emails.get(id), client.emails.content(id)]);
    return { ...email, text: content.text, html: content.html, headers: content.headers };
  }),
  tool('download_email', 'The raw RFC 5322 message (EML) as text', { emailId }, async (client, { emailId: id }) => {
    const raw = (await client.emails.eml(id)) as unknown as Blob;
    return { id, contentType: 'message/rfc822', size: raw.size, eml: await raw.text() };
  }),
  tool('delete_email', 'Delete an email with its raw message and attachments', { emailId }, async (client, { emailId: id }) => {
    await client.emails.delete(id);
    return { id, deleted: true };
  }),
  tool('mark_as_read', 'Mark an email read', { emailId }, (client, { emailId: id }) => client.emails.markRead(id)),
  tool('mark_as_unread', 'Mark an email unread', { emailId }, (client, { emailId: id }) => client.emails.markUnread(id)),
  tool('list_attachments', "An email's attachments (id, filename, contentType, size)", { emailId }, async (client, { emailId: id }) => (await client.emails.get(id)).attachments),
  tool(
    'get_attachment',
    'One attachment: its metadata and its bytes as base64',
    { emailId, attachmentId: z.string().min(1).describe('The attachment id (from list_attachments)') },
    (client, { emailId: id, attachmentId }) => attachmentOf(client, id, attachmentId),
  ),
];
