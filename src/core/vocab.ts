/** Spec literals, each written once; TypeBox schemas and SQL checks derive from these. */
export const LOG_TYPES = ['SMTP_RECEIVED', 'SPAM_CHECK', 'WEBHOOK', 'CHATAPP', 'CHATAPP_BOT'] as const;
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
