/** Spec literals, each written once; TypeBox schemas and SQL checks derive from these. */
/** BULK_ACTION (ours, not the spec's): one entry per bulk delete, bulk read state change or emptied inbox. */
export const LOG_TYPES = ['SMTP_RECEIVED', 'SPAM_CHECK', 'WEBHOOK', 'CHATAPP', 'CHATAPP_BOT', 'BULK_ACTION'] as const;
export type LogType = (typeof LOG_TYPES)[number];

export const LOG_STATUSES = ['SUCCESS', 'FAILED', 'PENDING'] as const;
export type LogStatus = (typeof LOG_STATUSES)[number];

/** Auth results as mailauth reports them; the spec lists the first five for SPF. */
export const AUTH_RESULTS = ['pass', 'fail', 'softfail', 'neutral', 'none', 'temperror', 'permerror', 'policy'] as const;
export type AuthResult = (typeof AUTH_RESULTS)[number];

export const PLANS = ['free', 'pro'] as const;
export type PlanName = (typeof PLANS)[number];

export const EMAIL_SORT_FIELDS = ['createdAt', 'from', 'subject'] as const;
export type EmailSortField = (typeof EMAIL_SORT_FIELDS)[number];

export const SORT_ORDERS = ['asc', 'desc'] as const;
export type SortOrder = (typeof SORT_ORDERS)[number];

export const API_KEY_SCOPES = ['api', 'imap'] as const;
export type ApiKeyScope = (typeof API_KEY_SCOPES)[number];

export const EVENT_TYPES = ['connected', 'heartbeat', 'email.received', 'email.updated', 'email.deleted', 'inbox.message'] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** SSE stream modes (spec 6.1). */
export const STREAM_MODES = ['broadcast', 'distributed'] as const;
export type StreamMode = (typeof STREAM_MODES)[number];

/** Spec 6.2: the webhook subscription value; the only one there is so far. */
export const WEBHOOK_EVENTS = ['email.received'] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

/** Chat-app integrations: an incoming-webhook URL (CHATAPP logs) or a bot posting to a channel (CHATAPP_BOT logs). */
export const CHATAPP_INTEGRATION_KINDS = ['webhook', 'bot'] as const;
export type ChatappIntegrationKind = (typeof CHATAPP_INTEGRATION_KINDS)[number];

/** Log types that record a notification attempt; each is also the kind of target a delivery goes to. */
export const NOTIFICATION_LOG_TYPES = ['WEBHOOK', 'CHATAPP', 'CHATAPP_BOT'] as const satisfies readonly LogType[];
export type NotificationLogType = (typeof NOTIFICATION_LOG_TYPES)[number];

/** Spec 2.9 storageConfig.provider: an S3-compatible store, Azure Blob Storage, Google Cloud Storage. */
export const STORAGE_PROVIDERS = ['S3', 'AZURE_BLOB', 'GCS'] as const;
export type StorageProvider = (typeof STORAGE_PROVIDERS)[number];
