import type { InboxMessage } from './api-types.generated.js';
import type { BodyOf, QueryOf, Transport } from './http.js';

/** GET /emails and the rest of spec 4.2. eml() and attachment() resolve to Blobs. */
export class EmailsResource {
  constructor(private readonly http: Transport) {}
  list = (query?: QueryOf<'GET /api/v1/emails'>) => this.http.call('GET /api/v1/emails', { query });
  get = (id: string) => this.http.call('GET /api/v1/emails/{id}', { path: { id } });
  content = (id: string) => this.http.call('GET /api/v1/emails/{id}/content', { path: { id } });
  /** HTML and CSS support per email client (docs/checks.md); 409 EMAIL_HAS_NO_HTML without an HTML body. */
  htmlCheck = (id: string) => this.http.call('GET /api/v1/emails/{id}/html-check', { path: { id } });
  /** Follows every link and image and reports each URL's status (docs/checks.md). */
  linkCheck = (id: string) => this.http.call('GET /api/v1/emails/{id}/link-check', { path: { id } });
  markRead = (id: string) => this.http.call('PATCH /api/v1/emails/{id}/read', { path: { id } });
  markUnread = (id: string) => this.http.call('PATCH /api/v1/emails/{id}/unread', { path: { id } });
  delete = (id: string) => this.http.call('DELETE /api/v1/emails/{id}', { path: { id } });
  eml = (id: string) => this.http.call('GET /api/v1/emails/{id}/eml', { path: { id } });
  attachment = (emailId: string, attachmentId: string) =>
    this.http.call('GET /api/v1/emails/{emailId}/attachments/{attachmentId}', { path: { emailId, attachmentId } });
  /** Bulk: `{ids}` or `{filter, q}` (docs/api.md#bulk-actions); resolves to `{deleted}`. */
  deleteMany = (body: BodyOf<'POST /api/v1/emails/delete'>) => this.http.call('POST /api/v1/emails/delete', { body });
  /** Bulk: as deleteMany, plus `read` (default true); resolves to `{updated}`. */
  markManyRead = (body: BodyOf<'POST /api/v1/emails/read'>) => this.http.call('POST /api/v1/emails/read', { body });
}

export interface WaitOptions {
  /** Longest wait in ms (default 30000). Longer waits are split into several long polls of at most 60 s. */
  timeout?: number;
  subject?: string;
  from?: string;
  afterId?: string;
  signal?: AbortSignal;
}

const SERVER_MAX_WAIT_MS = 60_000;

/** Spec 4.3: inboxes, their messages (with the long-poll wait), inbox-scoped keys and hooks. */
export class InboxesResource {
  constructor(private readonly http: Transport) {}
  create = (body: BodyOf<'POST /api/v1/inboxes'> = {}) => this.http.call('POST /api/v1/inboxes', { body });
  list = (query?: QueryOf<'GET /api/v1/inboxes'>) => this.http.call('GET /api/v1/inboxes', { query });
  get = (inboxId: string) => this.http.call('GET /api/v1/inboxes/{inboxId}', { path: { inboxId } });
  update = (inboxId: string, body: BodyOf<'PATCH /api/v1/inboxes/{inboxId}'>) => this.http.call('PATCH /api/v1/inboxes/{inboxId}', { path: { inboxId }, body });
  delete = (inboxId: string) => this.http.call('DELETE /api/v1/inboxes/{inboxId}', { path: { inboxId } });

  readonly messages = {
    list: (inboxId: string, query?: QueryOf<'GET /api/v1/inboxes/{inboxId}/messages'>) =>
      this.http.call('GET /api/v1/inboxes/{inboxId}/messages', { path: { inboxId }, query }),
    get: (inboxId: string, messageId: string) => this.http.call('GET /api/v1/inboxes/{inboxId}/messages/{messageId}', { path: { inboxId, messageId } }),
    /** Deletes every email of the inbox; resolves to `{deleted}`. */
    clear: (inboxId: string) => this.http.call('DELETE /api/v1/inboxes/{inboxId}/messages', { path: { inboxId } }),
  };

  readonly apiKeys = {
    create: (inboxId: string, body: BodyOf<'POST /api/v1/inboxes/{inboxId}/api-keys'>) =>
      this.http.call('POST /api/v1/inboxes/{inboxId}/api-keys', { path: { inboxId }, body }),
    list: (inboxId: string) => this.http.call('GET /api/v1/inboxes/{inboxId}/api-keys', { path: { inboxId } }),
    delete: (inboxId: string, keyId: string) => this.http.call('DELETE /api/v1/inboxes/{inboxId}/api-keys/{keyId}', { path: { inboxId, keyId } }),
  };

  readonly hooks = {
    list: (inboxId: string, query?: QueryOf<'GET /api/v1/inboxes/{inboxId}/hooks'>) =>
      this.http.call('GET /api/v1/inboxes/{inboxId}/hooks', { path: { inboxId }, query }),
    add: (inboxId: string, body: BodyOf<'POST /api/v1/inboxes/{inboxId}/hooks'>) => this.http.call('POST /api/v1/inboxes/{inboxId}/hooks', { path: { inboxId }, body }),
    remove: (inboxId: string, webhookId: string) =>
      this.http.call('DELETE /api/v1/inboxes/{inboxId}/hooks/{webhookId}', { path: { inboxId, webhookId } }),
  };

  /** The first message matching the filters (already stored or arriving), or null when the timeout passes. */
  async waitForMessage(inboxId: string, options: WaitOptions = {}): Promise<InboxMessage | null> {
    const { timeout = 30_000, signal, ...filters } = options;
    const deadline = Date.now() + timeout;
    // At least one poll, so timeout 0 still finds a message that is already there.
    let remaining = timeout;
    do {
      const query = { ...filters, timeout: Math.max(0, Math.min(remaining, SERVER_MAX_WAIT_MS)) };
      const message = await this.http.call('GET /api/v1/inboxes/{inboxId}/messages/wait', { path: { inboxId }, query, signal });
      if (message !== undefined) return message;
      remaining = deadline - Date.now();
    } while (remaining > 0);
    return null;
  }
}

/** Spec 4.4. verify() and setupDnsProvider() take the domain name, the others its id. */
export class DomainsResource {
  constructor(private readonly http: Transport) {}
  list = () => this.http.call('GET /api/v1/domains');
  create = (body: BodyOf<'POST /api/v1/domains'>) => this.http.call('POST /api/v1/domains', { body });
  get = (id: string) => this.http.call('GET /api/v1/domains/{id}', { path: { id } });
  /** The verification status as last checked, without a DNS lookup (verify() checks now). */
  verification = (id: string) => this.http.call('GET /api/v1/domains/{id}/verify', { path: { id } });
  verify = (domain: string, body: BodyOf<'POST /api/v1/domains/{domain}/verify'>) => this.http.call('POST /api/v1/domains/{domain}/verify', { path: { domain }, body });
  setupDnsProvider = (domain: string, body: BodyOf<'POST /api/v1/domains/{domain}/setup-dnsprovider'>) =>
    this.http.call('POST /api/v1/domains/{domain}/setup-dnsprovider', { path: { domain }, body });
  enable = (id: string) => this.http.call('POST /api/v1/domains/{id}/enable', { path: { id } });
  disable = (id: string) => this.http.call('POST /api/v1/domains/{id}/disable', { path: { id } });
  delete = (id: string) => this.http.call('DELETE /api/v1/domains/{id}', { path: { id } });
}

/** Spec 4.5. */
export class WebhooksResource {
  constructor(private readonly http: Transport) {}
  create = (body: BodyOf<'POST /api/v1/webhooks'>) => this.http.call('POST /api/v1/webhooks', { body });
  list = (query?: QueryOf<'GET /api/v1/webhooks'>) => this.http.call('GET /api/v1/webhooks', { query });
  get = (id: string) => this.http.call('GET /api/v1/webhooks/{id}', { path: { id } });
  update = (id: string, body: BodyOf<'PUT /api/v1/webhooks/{id}'>) => this.http.call('PUT /api/v1/webhooks/{id}', { path: { id }, body });
  patch = (id: string, body: BodyOf<'PATCH /api/v1/webhooks/{id}'>) => this.http.call('PATCH /api/v1/webhooks/{id}', { path: { id }, body });
  delete = (id: string) => this.http.call('DELETE /api/v1/webhooks/{id}', { path: { id } });
  rotateSecret = (id: string) => this.http.call('POST /api/v1/webhooks/{id}/rotate-secret', { path: { id } });
  logs = (id: string, query?: QueryOf<'GET /api/v1/webhooks/{id}/logs'>) => this.http.call('GET /api/v1/webhooks/{id}/logs', { path: { id }, query });
}

/** Spec 4.6 (activity log). */
export class LogsResource {
  constructor(private readonly http: Transport) {}
  list = (query?: QueryOf<'GET /api/v1/logs'>) => this.http.call('GET /api/v1/logs', { query });
  forEmail = (emailId: string, query?: QueryOf<'GET /api/v1/logs/email/{emailId}'>) =>
    this.http.call('GET /api/v1/logs/email/{emailId}', { path: { emailId }, query });
  resend = (logId: string) => this.http.call('POST /api/v1/logs/{logId}/resend', { path: { logId } });
}

/** Spec 4.1 (tenant-level keys). */
export class ApiKeysResource {
  constructor(private readonly http: Transport) {}
  list = (query?: QueryOf<'GET /api/v1/api-keys'>) => this.http.call('GET /api/v1/api-keys', { query });
  create = (body: BodyOf<'POST /api/v1/api-keys'>) => this.http.call('POST /api/v1/api-keys', { body });
  delete = (id: string) => this.http.call('DELETE /api/v1/api-keys/{id}', { path: { id } });
  activate = (id: string) => this.http.call('POST /api/v1/api-keys/{id}/activate', { path: { id } });
  deactivate = (id: string) => this.http.call('POST /api/v1/api-keys/{id}/deactivate', { path: { id } });
}

/** Environments of the account (production always exists). */
export class EnvironmentsResource {
  constructor(private readonly http: Transport) {}
  list = () => this.http.call('GET /api/v1/environments');
  create = (body: BodyOf<'POST /api/v1/environments'>) => this.http.call('POST /api/v1/environments', { body });
  delete = (id: string) => this.http.call('DELETE /api/v1/environments/{id}', { path: { id } });
}

/** Chat-app notification integrations (CHATAPP log entries). */
export class IntegrationsResource {
  constructor(private readonly http: Transport) {}
  list = (query?: QueryOf<'GET /api/v1/integrations'>) => this.http.call('GET /api/v1/integrations', { query });
  create = (body: BodyOf<'POST /api/v1/integrations'>) => this.http.call('POST /api/v1/integrations', { body });
  get = (id: string) => this.http.call('GET /api/v1/integrations/{id}', { path: { id } });
  update = (id: string, body: BodyOf<'PUT /api/v1/integrations/{id}'>) => this.http.call('PUT /api/v1/integrations/{id}', { path: { id }, body });
  delete = (id: string) => this.http.call('DELETE /api/v1/integrations/{id}', { path: { id } });
}

/**
 * Dashboard accounts (docs/dashboard.md). signUp/signIn/refresh/signOut work with the HttpOnly refresh
 * cookie, so they are for browsers on the service's own origin (client.me() works with any credential).
 */
export class AccountResource {
  constructor(private readonly http: Transport) {}
  config = () => this.http.call('GET /api/v1/auth/config');
  signUp = (body: BodyOf<'POST /api/v1/auth/signup'>) => this.http.call('POST /api/v1/auth/signup', { body });
  signIn = (body: BodyOf<'POST /api/v1/auth/signin'>) => this.http.call('POST /api/v1/auth/signin', { body });
  refresh = () => this.http.call('POST /api/v1/auth/refresh', { body: {} });
  signOut = () => this.http.call('POST /api/v1/auth/signout', { body: {} });
  /** Follows an emailed sign-up link (its `#token=`): creates the account and signs in. */
  verifyEmail = (body: BodyOf<'POST /api/v1/auth/verify-email'>) => this.http.call('POST /api/v1/auth/verify-email', { body });
  requestPasswordReset = (body: BodyOf<'POST /api/v1/auth/password-reset'>) => this.http.call('POST /api/v1/auth/password-reset', { body });
  resetPassword = (body: BodyOf<'POST /api/v1/auth/password-reset/confirm'>) => this.http.call('POST /api/v1/auth/password-reset/confirm', { body });
  /** The signed-in user's password (a session JWT, not an API key); other sessions are signed out. */
  changePassword = (body: BodyOf<'POST /api/v1/auth/password'>) => this.http.call('POST /api/v1/auth/password', { body });
}

/** Custom object storage (paid plans): where new mail of the account is stored. */
export class StorageResource {
  constructor(private readonly http: Transport) {}
  get = () => this.http.call('GET /api/v1/storage');
  configure = (body: BodyOf<'PUT /api/v1/storage'>) => this.http.call('PUT /api/v1/storage', { body });
  disable = () => this.http.call('DELETE /api/v1/storage');
}
