import type { AccountLinkService } from './account-link.service.js';
import type { AccountService } from './account.service.js';
import type { ActivityLogService } from './activity-log.service.js';
import type { ApiKeyService } from './api-key.service.js';
import type { AuthService } from './auth.service.js';
import type { ChatappIntegrationService } from './chatapp-integration.service.js';
import type { ConnectionInfoService } from './connection-info.service.js';
import type { CustomStorageService } from './custom-storage.service.js';
import type { DeliveryService } from './delivery.service.js';
import type { DomainService } from './domain.service.js';
import type { EmailBulkService } from './email-bulk.service.js';
import type { EmailService } from './email.service.js';
import type { EnvironmentService } from './environment.service.js';
import type { ImapMailboxService } from './imap-mailbox.service.js';
import type { InboxKeyService } from './inbox-key.service.js';
import type { InboxMessageService } from './inbox-message.service.js';
import type { InboxService } from './inbox.service.js';
import type { IngestService } from './ingest.service.js';
import type { LoginFreeSessions } from './login-free-sessions.js';
import type { MessageCheckService } from './message-check.service.js';
import type { RealtimeService } from './realtime.service.js';
import type { RecipientService } from './recipient.service.js';
import type { RetentionService } from './retention.service.js';
import type { TenantService } from './tenant.service.js';
import type { UsageService } from './usage.service.js';
import type { WebhookService } from './webhook.service.js';

/** Every service of a node, as createApp builds them: what the transports are handed (they never import app.ts). */
export interface AppServices {
  imap: ImapMailboxService;
  tenants: TenantService;
  auth: AuthService;
  emails: EmailService;
  messageChecks: MessageCheckService;
  emailBulk: EmailBulkService;
  inboxes: InboxService;
  domains: DomainService;
  inboxMessages: InboxMessageService;
  inboxKeys: InboxKeyService;
  recipients: RecipientService;
  ingest: IngestService;
  logs: ActivityLogService;
  webhooks: WebhookService;
  chatappIntegrations: ChatappIntegrationService;
  deliveries: DeliveryService;
  realtime: RealtimeService;
  apiKeys: ApiKeyService;
  environments: EnvironmentService;
  usage: UsageService;
  accounts: AccountService;
  /** Emailed sign-up and reset links; undefined without MAILROOM_SMTP_RELAY_URL (docs/dashboard.md). */
  accountLinks: AccountLinkService | undefined;
  storage: CustomStorageService;
  retention: RetentionService;
  loginFree: LoginFreeSessions;
  connection: ConnectionInfoService;
}
