import { Type } from '@sinclair/typebox';
import { MAX_ALIASES } from '../../../services/inbox-aliases.js';
import { IsoDate, Nullable, PageQuery } from './common.js';

const Tags = Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { maxItems: 50 });
const Aliases = Type.Array(Type.String({ minLength: 1, maxLength: 254 }), {
  maxItems: MAX_ALIASES,
  description: `Up to ${MAX_ALIASES} extra addresses on the inbox's domain: a local part (\`sales\`) or a full address; unique like inbox addresses`,
});

export const InboxSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    address: Type.String(),
    addressPrefix: Type.String(),
    name: Nullable(Type.String({ description: 'Display name given at creation; null when none' })),
    aliases: Type.Array(Type.String(), { description: 'Extra addresses of this inbox on its domain; mail to any of them lands here' }),
    tags: Type.Array(Type.String()),
    expiresAt: Nullable(IsoDate),
    active: Type.Boolean(),
    messageCount: Type.Integer(),
    createdAt: IsoDate,
    domain: Type.Object({
      id: Nullable(Type.String({ description: 'null for the shared mail domain' })),
      domain: Type.String(),
    }),
    environment: Type.Object({ id: Type.String(), name: Type.String(), slug: Type.String() }),
  },
  { $id: 'Inbox', title: 'Inbox' },
);

export const CreateInboxBody = Type.Object(
  {
    prefix: Type.Optional(Type.String({ maxLength: 200, description: 'Local part, used as given (lower-cased); generated when omitted' })),
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'A display name for the inbox; it does not change the address' })),
    domainId: Type.Optional(Type.String({ format: 'uuid' })),
    environmentId: Type.Optional(Type.String({ format: 'uuid' })),
    tags: Type.Optional(Tags),
    ttlSeconds: Type.Optional(Type.Number({ description: '60 to 86400; the inbox and its messages are deleted after that many seconds' })),
    aliases: Type.Optional(Aliases),
  },
  { additionalProperties: false },
);

export const UpdateInboxBody = Type.Object(
  {
    aliases: Type.Optional(Aliases),
    tags: Type.Optional(Tags),
    active: Type.Optional(Type.Boolean({ description: 'false: mail to the inbox is refused (550) and its messages are kept; true: it receives again' })),
  },
  { additionalProperties: false, description: 'Each field given replaces the current value; fields left out stay as they are' },
);

export const InboxStatsSchema = Type.Object({
  messageCount: Type.Integer({ description: 'Messages in the inbox' }),
  unreadCount: Type.Integer({ description: 'Messages whose email is not marked read' }),
  lastMessageAt: Nullable(IsoDate),
  sizeBytes: Type.Integer({ description: 'Total size of the raw messages' }),
});

export const InboxDetailSchema = Type.Object({ ...InboxSchema.properties, stats: InboxStatsSchema }, { title: 'InboxDetail' });

export const InboxListQuery = Type.Object({
  ...PageQuery(20, 100),
  environmentId: Type.Optional(Type.String({ maxLength: 100 })),
  domainId: Type.Optional(Type.String({ maxLength: 100 })),
  tags: Type.Optional(
    Type.Array(Type.String({ minLength: 1, maxLength: 200 }), {
      maxItems: 20,
      description: 'Inboxes carrying all of these tags (case-insensitive); repeat the parameter or separate with commas',
    }),
  ),
  includeExpired: Type.Optional(Type.Boolean({ default: false, description: 'Also list temporary inboxes past their expiresAt that the sweeper has not removed yet' })),
});

export const InboxIdParams = Type.Object({ inboxId: Type.String({ minLength: 1, maxLength: 100 }) });
