import { Type } from '@sinclair/typebox';
import { CHATAPP_INTEGRATION_KINDS, WEBHOOK_EVENTS } from '../../../core/vocab.js';
import { IsoDate, Nullable } from './common.js';

const Url = Type.String({ minLength: 1, maxLength: 2048, description: 'http:// or https:// URL; must not resolve to a loopback, private or link-local address' });
const Events = Type.Array(Type.String({ minLength: 1, maxLength: 100 }), {
  minItems: 1,
  maxItems: 20,
  description: `Events that fire the webhook (default ["email.received"]); allowed: ${WEBHOOK_EVENTS.join(', ')}`,
});
const Description = Type.String({ maxLength: 500 });
const InboxIds = Type.Array(Type.String({ minLength: 1, maxLength: 100 }), {
  maxItems: 100,
  description: 'Inboxes whose emails fire it; empty (or omitted) means every email of the account',
});

export const WebhookSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    url: Type.String(),
    events: Type.Array(Type.Union(WEBHOOK_EVENTS.map((e) => Type.Literal(e)))),
    description: Type.String(),
    active: Type.Boolean({ description: 'Inactive webhooks are not fired' }),
    secret: Type.String({
      description:
        'Signing secret (whsec_…, or your own). In full only in the response that created or rotated it (or set it at creation); masked (whsec_…last4, or …last4 for your own) everywhere else',
    }),
    inboxIds: Type.Array(Type.String(), { description: 'Linked inboxes; empty means the webhook fires for every email of the account' }),
    createdAt: IsoDate,
    updatedAt: IsoDate,
  },
  { $id: 'Webhook', title: 'Webhook' },
);

const Secret = Type.String({
  minLength: 16,
  maxLength: 256,
  description: 'Your own signing secret (16 to 256 characters) instead of a generated whsec_… one',
});
const Enabled = Type.Boolean({ description: 'Same as active (the spelling of the hosted service\'s clients); give one of the two' });

const NewWebhookFields = { url: Url, events: Type.Optional(Events), description: Type.Optional(Description), active: Type.Optional(Type.Boolean()) };

export const CreateWebhookBody = Type.Object(
  {
    ...NewWebhookFields,
    enabled: Type.Optional(Enabled),
    secret: Type.Optional(Secret),
    inboxId: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Also link the new webhook to this inbox, in the same step' })),
  },
  { additionalProperties: false },
);

export const UpdateWebhookBody = Type.Object(
  {
    url: Type.Optional(Url),
    events: Type.Optional(Events),
    description: Type.Optional(Description),
    active: Type.Optional(Type.Boolean()),
    enabled: Type.Optional(Enabled),
    secret: Type.Optional(Secret),
  },
  { additionalProperties: false, description: 'Fields left out keep their value' },
);

export const InboxHookBody = Type.Union(
  [
    Type.Object({ webhookId: Type.String({ minLength: 1, maxLength: 100, description: 'Links this existing webhook' }) }, { additionalProperties: false }),
    Type.Object(NewWebhookFields, { additionalProperties: false }),
  ],
  { description: 'Either webhookId (link an existing webhook) or url with optional events and description (create one and link it)' },
);

export const InboxHookLinkSchema = Type.Object({
  webhook: Type.Ref(WebhookSchema),
  created: Type.Boolean({ description: 'This call created the webhook (its secret is shown in full)' }),
  linked: Type.Boolean({ description: 'This call created the link; false when it already existed' }),
});

export const ChatappIntegrationSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    kind: Type.Union(CHATAPP_INTEGRATION_KINDS.map((k) => Type.Literal(k)), { description: 'webhook: an incoming-webhook URL; bot: a bot token posting to a channel' }),
    name: Type.String(),
    url: Nullable(Type.String({ description: 'Incoming-webhook URL; in full only at creation, then masked (…last4)' })),
    botToken: Nullable(Type.String({ description: 'Bot token; in full only at creation, then masked (…last4)' })),
    channelId: Nullable(Type.String()),
    guildId: Nullable(Type.String()),
    inboxIds: Type.Array(Type.String(), { description: 'Inboxes whose emails it announces; empty means every email of the account' }),
    active: Type.Boolean(),
    createdAt: IsoDate,
    updatedAt: IsoDate,
  },
  { $id: 'ChatappIntegration', title: 'ChatappIntegration' },
);

const ChatappFields = {
  name: Type.Optional(Type.String({ maxLength: 200 })),
  url: Type.Optional(Url),
  botToken: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
  channelId: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  guildId: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  inboxIds: Type.Optional(InboxIds),
  active: Type.Optional(Type.Boolean()),
};

export const CreateChatappIntegrationBody = Type.Object(
  { kind: Type.Union(CHATAPP_INTEGRATION_KINDS.map((k) => Type.Literal(k))), ...ChatappFields },
  { additionalProperties: false, description: 'kind webhook needs url; kind bot needs botToken and channelId (guildId optional)' },
);

export const UpdateChatappIntegrationBody = Type.Object(ChatappFields, { additionalProperties: false, description: 'Fields left out keep their value' });

export const ResendResultSchema = Type.Object({
  success: Type.Boolean({ description: 'The new attempt was delivered (2xx)' }),
  message: Type.String(),
  newLogId: Type.String({ description: 'The log entry of the new attempt' }),
});
