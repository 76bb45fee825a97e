import { z } from 'zod';
import type { InboxMessage, MailroomClient } from '../../client/index.js';
import { tool } from './tool.js';

const inboxId = z.string().min(1).describe('The inbox id');
const pageNumber = {
  page: z.number().int().min(1).optional().describe('Page number, from 1'),
  perPage: z.number().int().min(1).max(100).optional().describe('Items per page (default 20, max 100)'),
};
/** MCP clients commonly give up on a request after 60 s, so a wait stays within that by default. */
const wait = {
  inboxId,
  timeout: z.number().int().min(0).max(60_000).optional().describe('Longest wait in ms (default 30000, max 60000)'),
  subject: z.string().min(1).max(500).optional().describe('Subject contains this (case-insensitive)'),
  from: z.string().min(1).max(500).optional().describe('Sender contains this (case-insensitive)'),
  afterId: z.string().min(1).optional().describe('Only messages received after this message id of the inbox'),
};

type WaitArgs = { inboxId: string; timeout?: number; subject?: string; from?: string; afterId?: string };

const waitFor = (client: MailroomClient, { inboxId: id, ...options }: WaitArgs) => client.inboxes.waitForMessage(id, { timeout: 30_000, ...options });

/** The code and link a sign-up or login test needs, from the message's extracted artefacts (none when extraction was skipped). */
function artefacts(message: InboxMessage) {
  if (message.extracted === null) return { code: null, link: null, extractionSkipped: message.extractionSkipped };
  const { otp, verificationCode, codes, magicLink, links } = message.extracted;
  return { code: otp ?? verificationCode ?? codes[0] ?? null, link: magicLink ?? links[0] ?? null };
}

const notFound = (timeout: number | undefined) => ({ found: false, message: null, timeoutMs: timeout ?? 30_000 });

export const INBOX_TOOLS = [
  tool(
    'list_inboxes',
    'List inboxes, newest first (an inbox-scoped key sees only its inbox)',
    { ...pageNumber, tags: z.array(z.string().min(1)).max(20).optional().describe('Only inboxes carrying all these tags') },
    (client, args) => client.inboxes.list(args),
  ),
  tool('get_inbox', 'One inbox with its address and message stats', { inboxId }, (client, { inboxId: id }) => client.inboxes.get(id)),
  tool(
    'create_inbox',
    'Create an inbox (an email address that captures mail); every field is optional',
    {
      name: z.string().min(1).max(200).optional().describe('Display name'),
      prefix: z.string().min(1).max(64).optional().describe('Local part of the address; generated when omitted'),
      domainId: z.string().optional().describe('A verified custom domain id; default the shared mail domain'),
      tags: z.array(z.string().min(1).max(64)).max(50).optional(),
      ttlSeconds: z.number().int().min(60).max(86_400).optional().describe('Delete the inbox after this many seconds'),
    },
    (client, args) => client.inboxes.create(args),
  ),
  tool('wait_for_email', 'Wait for the first email in an inbox matching the filters; returns the email', wait, async (client, args) => {
    const message = await waitFor(client, args);
    return message === null ? notFound(args.timeout) : { found: true, email: await client.emails.get(message.emailId) };
  }),
  tool(
    'wait_for_inbox_message',
    'Wait for the first inbox message matching the filters; returns it with the extracted one-time code and link',
    wait,
    async (client, args) => {
      const message = await waitFor(client, args);
      return message === null ? notFound(args.timeout) : { found: true, ...artefacts(message), message };
    },
  ),
];
