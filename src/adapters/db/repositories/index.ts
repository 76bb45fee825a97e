import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';
import { ActivityLogRepository } from './activity-log.repository.js';
import { ApiKeyRepository } from './api-key.repository.js';
import { DomainRepository } from './domain.repository.js';
import { EmailRepository } from './email.repository.js';
import { InboxRepository } from './inbox.repository.js';
import { InboxMessageRepository } from './inbox-message.repository.js';
import { ImapMailboxRepository } from './imap-mailbox.repository.js';
import { LeaseRepository } from './lease.repository.js';
import { WebhookRepository } from './webhook.repository.js';
import { ChatappIntegrationRepository } from './chatapp-integration.repository.js';
import { DeliveryRepository } from './delivery.repository.js';
import { TenantRepository } from './tenant.repository.js';
import { UsageRepository } from './usage.repository.js';
import { UserRepository } from './user.repository.js';
import { StorageConfigRepository } from './storage-config.repository.js';
import { OperationsRepository } from './operations.repository.js';
import { AccountTokenRepository } from './account-token.repository.js';

/** Every repository over one Kysely handle: the pool, or a transaction (see UnitOfWork). */
export interface Repositories {
  tenants: TenantRepository;
  apiKeys: ApiKeyRepository;
  inboxes: InboxRepository;
  inboxMessages: InboxMessageRepository;
  domains: DomainRepository;
  emails: EmailRepository;
  logs: ActivityLogRepository;
  leases: LeaseRepository;
  webhooks: WebhookRepository;
  chatappIntegrations: ChatappIntegrationRepository;
  deliveries: DeliveryRepository;
  imapMailbox: ImapMailboxRepository;
  usage: UsageRepository;
  users: UserRepository;
  storageConfigs: StorageConfigRepository;
  operations: OperationsRepository;
  accountTokens: AccountTokenRepository;
}

export function createRepositories(db: Kysely<Database>): Repositories {
  return {
    tenants: new TenantRepository(db),
    apiKeys: new ApiKeyRepository(db),
    inboxes: new InboxRepository(db),
    inboxMessages: new InboxMessageRepository(db),
    domains: new DomainRepository(db),
    emails: new EmailRepository(db),
    logs: new ActivityLogRepository(db),
    leases: new LeaseRepository(db),
    webhooks: new WebhookRepository(db),
    chatappIntegrations: new ChatappIntegrationRepository(db),
    deliveries: new DeliveryRepository(db),
    imapMailbox: new ImapMailboxRepository(db),
    usage: new UsageRepository(db),
    users: new UserRepository(db),
    storageConfigs: new StorageConfigRepository(db),
    operations: new OperationsRepository(db),
    accountTokens: new AccountTokenRepository(db),
  };
}

/** Runs `work` in one transaction; everything it writes commits together or not at all. */
export type UnitOfWork = <T>(work: (repos: Repositories) => Promise<T>) => Promise<T>;

/**
 * Makes a group-committed writer: concurrent calls' items are written together by one `write` over
 * all of them, in one transaction; each call settles after the commit that holds its item.
 * `pending` counts the items on their way: while it is 0 a batch does not wait for more.
 */
export type BatchCommitFactory = <I, R>(
  write: (repos: Repositories, items: I[]) => Promise<R>,
  afterCommit: (result: R) => void,
  pending: () => number,
) => (item: I) => Promise<void>;

export function createUnitOfWork(db: Kysely<Database>): UnitOfWork {
  return (work) => db.transaction().execute((trx) => work(createRepositories(trx)));
}
