import { z } from 'zod';
import { tool } from './tool.js';

const webhookId = z.string().min(1).describe('The webhook id');
const domainId = z.string().min(1).describe('The domain id');
const url = z.string().min(1).max(2048).describe('http(s) URL that receives a signed POST per email');
const secret = z.string().min(16).max(256).describe('Your own signing secret (16 to 256 characters); generated when omitted');
const events = z.array(z.string().min(1)).min(1).max(20).optional().describe('Default ["email.received"]');

export const ACCOUNT_TOOLS = [
  tool(
    'list_webhooks',
    "List the account's webhooks",
    { page: z.number().int().min(1).optional(), perPage: z.number().int().min(1).max(100).optional() },
    (client, args) => client.webhooks.list(args),
  ),
  tool('get_webhook', 'One webhook (secret masked)', { webhookId }, (client, { webhookId: id }) => client.webhooks.get(id)),
  tool(
    'create_webhook',
    'Create a webhook, linked to one inbox when inboxId is given; the answer shows the signing secret once',
    { url, inboxId: z.string().min(1).optional(), secret: secret.optional(), events, description: z.string().max(500).optional() },
    (client, args) => client.webhooks.create(args),
  ),
  tool(
    'update_webhook',
    'Change a webhook: url, secret, enabled, events or description (fields left out keep their value)',
    { webhookId, url: url.optional(), secret: secret.optional(), enabled: z.boolean().optional(), events, description: z.string().max(500).optional() },
    (client, { webhookId: id, ...changes }) => client.webhooks.patch(id, changes),
  ),
  tool('delete_webhook', 'Delete a webhook with its inbox links', { webhookId }, async (client, { webhookId: id }) => {
    await client.webhooks.delete(id);
    return { id, deleted: true };
  }),
  tool('list_domains', "The account's custom domains", {}, (client) => client.domains.list()),
  tool('get_domain', 'A custom domain with its DNS records and their last check', { domainId }, (client, { domainId: id }) => client.domains.get(id)),
  tool(
    'check_domain_verification',
    "A domain's verification status and each DNS record's last check result",
    { domainId },
    (client, { domainId: id }) => client.domains.verification(id),
  ),
  tool('get_tenant', 'The account: id, name, plan and limits', {}, (client) => client.tenant()),
  tool('get_usage', "This month's emails against the quota, webhook deliveries and the reset date", {}, (client) => client.usage()),
];
