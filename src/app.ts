import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import type { SMTPServer } from 'smtp-server';
import type { AppConfig } from './config/config.js';
import { createDatabase, migrateToLatestOrThrow, type Db } from './adapters/db/database.js';
import { createRepositories, createUnitOfWork, type Repositories } from './adapters/db/repositories/index.js';
import { createBatchCommit, createGroupCommitUnitOfWork } from './adapters/db/group-commit.js';
import { closeServiceBlobStore, openCustomBlobStore, openServiceBlobStore } from './adapters/blobs/open-blob-store.js';
import { lookupVia, storageEgress, storageEndpointGuard } from './adapters/blobs/storage-egress.js';
import { SecretBox, loadStorageEncryptionKey } from './adapters/secrets/secret-box.js';
import { createEventAdapters } from './adapters/events/create-event-adapters.js';
import { createCachingNodeDnsResolver, createNodeDnsResolver } from './adapters/dns/node.dns-resolver.js';
import { CloudflareDnsProvider } from './adapters/dns/cloudflare.dns-provider.js';
import { WorkerPoolMessageAnalyzer } from './adapters/mail/worker-pool.message-analyzer.js';
import { loadTlsMaterial } from './adapters/tls/certificate.js';
import { createLogger, type Logger } from './logger.js';
import { connectionLimitTotal } from './config/limits-settings.js';
import { openFileLimit } from './adapters/os/open-file-limit.js';
import type { BlobStore } from './ports/blob-store.js';
import type { DnsResolve } from './ports/dns-resolver.js';
import type { EventBus } from './ports/event-bus.js';
import type { MailAuthenticator } from './ports/mail-authenticator.js';
import type { MimeParser } from './ports/mime-parser.js';
import type { MessageAnalyzer } from './ports/message-analyzer.js';
import type { OutboundMail } from './ports/outbound-mail.js';
import { ActivityLogService } from './services/activity-log.service.js';
import { NodeHttpSender } from './adapters/http/node.http-sender.js';
import { NodeLinkProber } from './adapters/http/node.link-prober.js';
import { CaniemailHtmlChecker } from './adapters/checks/caniemail.html-checker.js';
import { LINK_CHECK_LIMITS, MessageCheckService } from './services/message-check.service.js';
import { ChatappIntegrationService } from './services/chatapp-integration.service.js';
import { DeliveryService } from './services/delivery.service.js';
import { createNotificationParticipant } from './services/notification.participant.js';
import { WebhookService } from './services/webhook.service.js';
import { createDeliveryWorker } from './workers/delivery.worker.js';
import { RealtimeService } from './services/realtime.service.js';
import { createRealtimeTasks } from './workers/realtime-heartbeat.worker.js';
import { AuthService } from './services/auth.service.js';
import { DomainService } from './services/domain.service.js';
import { createDomainRecheckTask } from './workers/domain-recheck.worker.js';
import { EmailBulkService } from './services/email-bulk.service.js';
import { EmailService } from './services/email.service.js';
import { InboxService } from './services/inbox.service.js';
import { InboxKeyService } from './services/inbox-key.service.js';
import { InboxMessageService } from './services/inbox-message.service.js';
import { MessageWaiters } from './services/message-waiters.js';
import { IngestService } from './services/ingest.service.js';
import { RecipientService } from './services/recipient.service.js';
import { TenantService } from './services/tenant.service.js';
import { buildHttpServer } from './transports/http/http.server.js';
import { createSmtpServer } from './transports/smtp/smtp.server.js';
import { prepareSpoolDir } from './transports/smtp/spool.js';
import { IMAP_FAILURE_WINDOW_MS, ImapMailboxService } from './services/imap-mailbox.service.js';
import { createImapServer } from './transports/imap/imap.server.js';
import { ConnectionInfoService, type ListenerAddress } from './services/connection-info.service.js';
import type { AppServices } from './services/app-services.js';
import { VERSION } from './version.js';
import type { IngestParticipant } from './services/ingest-participant.js';
import type { BackgroundTask } from './workers/periodic-task.js';
import { ApiKeyService } from './services/api-key.service.js';
import { EnvironmentService } from './services/environment.service.js';
import { TenantLimits } from './services/tenant-limits.js';
import { UsageService } from './services/usage.service.js';
import { MemoryFailureCounter } from './adapters/events/memory.failure-counter.js';
import { RedisFailureCounter } from './adapters/events/redis.failure-counter.js';
import type { FailureCounter } from './ports/failure-counter.js';
import { loadSessionSecret } from './adapters/secrets/session-secret.js';
import { AccountService, DEFAULT_ACCOUNT_SETTINGS } from './services/account.service.js';
import { AccountLinkService, DEFAULT_ACCOUNT_LINK_SETTINGS } from './services/account-link.service.js';
import { createPeriodicTask } from './workers/periodic-task.js';
import { TenantBlobStores, type OpenCustomStore } from './services/tenant-blob-stores.js';
import { CustomStorageService } from './services/custom-storage.service.js';
import { createOrphanBlobSweeper } from './workers/orphan-blob-sweep.worker.js';
import { PrometheusMetrics } from './adapters/metrics/prometheus.metrics.js';
import type { Metrics } from './ports/metrics.js';
import { ReadinessService } from './services/readiness.service.js';
import { LocalAccountService, type LocalAccount } from './services/local-account.service.js';
import { localAccountFile } from './adapters/secrets/local-account-file.js';
import { LoginFreeSessions } from './services/login-free-sessions.js';
import { RetentionService } from './services/retention.service.js';
import { SpamCheckService } from './services/spam-check.service.js';
import { RspamdSpamFilter } from './adapters/spam/rspamd.spam-filter.js';


export interface AppContext {
  /** Periodic work (sweepers, delivery workers), started by start() and stopped by stop(). */
  tasks: BackgroundTask[];
  config: AppConfig;
  logger: Logger;
  db: Db;
  repos: Repositories;
  blobs: BlobStore;
  events: EventBus;
  services: AppServices;
  metrics: Metrics;
  readiness: ReadinessService;
  /** The catch-all and login-free account (docs/local.md); undefined when neither is on. */
  localAccount: LocalAccount | undefined;
}

/** What tests (and only tests) may swap: adapters for things outside the process. */
export interface AppOverrides {
  logger?: Logger;
  resolver?: DnsResolve;
  blobs?: BlobStore;
  events?: EventBus;
  parser?: MimeParser;
  authenticator?: MailAuthenticator;
}

export interface ListeningAddresses {
  http: { host: string; port: number };
  smtp: { host: string; port: number };
  imap: { host: string; port: number };
}

export interface App {
  ctx: AppContext;
  http: FastifyInstance;
  smtp: SMTPServer;
  start(): Promise<ListeningAddresses>;
  stop(): Promise<void>;
}

/** A plan change (CLI) reaches every node's rate limiter and quota check within this time. */
const PLAN_CACHE_MS = 10_000;

/**
 * RCPT TO reuses what it read about an address and a tenant's monthly count for this long (D35): an
 * inbox or domain change made on another node (or by the CLI) applies here within it, as does mail
 * counted by other nodes; changes and mail on this node apply at once.
 */
const RECIPIENT_CACHE_MS = 2_000;

/** A custom-storage change made on another node applies to new mail here within this time. */
const STORAGE_CACHE_MS = 10_000;

/** Expired dashboard refresh sessions are deleted this often (one node at a time). */
const SESSION_SWEEP_MS = 3_600_000;

/** A dependency that does not answer GET /readyz's probe within this time counts as down. */
const READINESS_TIMEOUT_MS = 2_000;

/** A listener this node's roles leave off (MAILROOM_ROLES) reports port 0. */
const NOT_LISTENING = { host: '', port: 0 };

/** A DNS provider call that takes longer than this is reported as unreachable (502). */
const DNS_PROVIDER_TIMEOUT_MS = 15_000;

function listenSmtp(server: SMTPServer, host: string, port: number): Promise<{ host: string; port: number }> {
  return new Promise((resolve, reject) => {
    server.server.once('error', reject);
    server.listen(port, host, () => {
      server.server.off('error', reject);
      const address = server.server.address() as AddressInfo;
      resolve({ host: address.address, port: address.port });
    });
  });
}

/** Past the open-file limit every listener fails at once, silently: say so at start instead. */
function warnIfFewDescriptors(config: AppConfig, logger: Logger): void {
  const limit = openFileLimit();
  const needed = connectionLimitTotal(config.limits, config.operations.roles);
  if (limit === undefined || limit >= needed) return;
  logger.warn(
    { openFileLimit: limit, connectionLimits: needed },
    'the open-file limit (ulimit -n) is below the configured connection limits: raise it, or lower MAILROOM_SMTP_MAX_SESSIONS, MAILROOM_IMAP_MAX_SESSIONS and MAILROOM_HTTP_MAX_CONNECTIONS (docs/security.md)',
  );
}

/**
 * Messages are analysed on worker threads; inline when MAILROOM_INGEST_WORKERS is 0, or when a test
 * injects a parser, authenticator or resolver (those cannot cross into a worker). The inline
 * adapters' libraries (mailauth, postal-mime) load only then: the main thread never runs them
 * otherwise, and they are some 10 MB of its heap (docs/decisions.md D34).
 */
async function createAnalyzer(config: AppConfig, overrides: AppOverrides, searchVectors: boolean, onWorkerError: (error: unknown) => void): Promise<MessageAnalyzer> {
  const authDeadlineMs = config.dns.timeoutMs * 3;
  const injected = overrides.parser ?? overrides.authenticator ?? overrides.resolver;
  if (config.ingestWorkers > 0 && injected === undefined) {
    return new WorkerPoolMessageAnalyzer(config.ingestWorkers, { dns: config.dns, mxHost: config.mxHost, authDeadlineMs, extraction: config.extraction, searchVectors }, onWorkerError);
  }
  const [{ InlineMessageAnalyzer }, { PostalMimeParser }, { MailauthAuthenticator }] = await Promise.all([
    import('./adapters/mail/inline.message-analyzer.js'),
    import('./adapters/mail/postal.mime-parser.js'),
    import('./adapters/mail/mailauth.authenticator.js'),
  ]);
  const parser = overrides.parser ?? new PostalMimeParser();
  // Message checks ask the same names again and again, so their answers are cached; an injected
  // resolver answers as its test says.
  const authResolver = overrides.resolver ?? createCachingNodeDnsResolver(config.dns.servers, config.dns.timeoutMs);
  const authenticator = overrides.authenticator ?? new MailauthAuthenticator(authResolver, config.mxHost, authDeadlineMs);
  return new InlineMessageAnalyzer(parser, authenticator, config.extraction, searchVectors);
}

/** The rate limiter's and login throttles' Redis, in distributed mode only; ioredis loads then (D34). */
async function connectRateLimitRedis(config: AppConfig): Promise<Redis | undefined> {
  if (config.redisUrl === undefined) return undefined;
  const { connectRedis } = await import('./adapters/events/redis.event-bus.js');
  return connectRedis(config.redisUrl);
}

/** Sign-up and reset mail through MAILROOM_SMTP_RELAY_URL; nodemailer loads only when it is set (D34). */
async function openOutboundMail(config: AppConfig): Promise<OutboundMail | undefined> {
  if (config.mail.relayUrl === undefined) return undefined;
  const { SmtpRelayOutboundMail } = await import('./adapters/mail/smtp-relay.outbound-mail.js');
  return new SmtpRelayOutboundMail(config.mail.relayUrl, config.mail.from);
}

/** The composition root: builds every adapter and service in dependency order. Nothing listens until start(). */
export async function createApp(config: AppConfig, overrides: AppOverrides = {}): Promise<App> {
  const logger = overrides.logger ?? createLogger(config.logLevel);
  const logBackgroundError = (error: unknown) => logger.error({ err: error }, 'background task failed');

  const secrets = new SecretBox(await loadStorageEncryptionKey(config.storage.encryptionKey, config.dataDir));
  const db = createDatabase(config.db, logBackgroundError);
  await migrateToLatestOrThrow(db, { sealer: secrets });
  const repos = createRepositories(db.kysely);
  const metrics = new PrometheusMetrics();
  const unitOfWork = createUnitOfWork(db.kysely);
  // SQLite has one writer and a costly commit: concurrent delivery updates commit together; ingests
  // are group-committed on both databases by IngestService's batch commit (docs/decisions.md).
  const deliveryUnitOfWork = db.dialect === 'sqlite' ? createGroupCommitUnitOfWork(db.kysely) : unitOfWork;
  const serviceBlobs = overrides.blobs ?? (await openServiceBlobStore(config.storage.service));
  // Every service reads and writes through this: it sends each key to the service store or to the
  // tenant's own bucket the key was written to (docs/storage.md).
  const resolver = overrides.resolver ?? createNodeDnsResolver(config.dns.servers, config.dns.timeoutMs);
  // Tenants' buckets are reached only through the egress guard, on every connection (docs/storage.md).
  const storageLookup = lookupVia(resolver);
  const storageGuard = config.storage.allowPrivateEndpoints ? undefined : await storageEgress(storageLookup);
  const openCustom: OpenCustomStore = (target, credentials) => openCustomBlobStore(target, credentials, storageGuard);
  const blobs = new TenantBlobStores(serviceBlobs, repos, secrets, openCustom, STORAGE_CACHE_MS, logBackgroundError);
  const { events, connectionGroups } = await createEventAdapters(config, logBackgroundError, overrides.events);
  // PostgreSQL's search vector is built by Mailroom (D53), on the analysis threads (D57); SQLite's FTS5 needs none.
  const analyzer = await createAnalyzer(config, overrides, db.dialect === 'postgres', logBackgroundError);

  const participants: IngestParticipant[] = [];
  const tasks: BackgroundTask[] = [];
  const tenants = new TenantService(repos, unitOfWork);
  const tenantLimits = new TenantLimits(repos, PLAN_CACHE_MS);
  const usage = new UsageService(repos, tenantLimits, RECIPIENT_CACHE_MS, logBackgroundError, config.local.limits);
  const localAccount = config.local.acceptAnyRecipient || config.local.dashboardLogin === 'off-on-loopback'
    ? await new LocalAccountService(repos, tenants, localAccountFile(config.dataDir), config.mailDomain).ensure()
    : undefined;
  const recipients = new RecipientService(repos, tenants, RECIPIENT_CACHE_MS, config.local.limits ? [usage] : [], config.local.acceptAnyRecipient ? localAccount : undefined);
  const inboxes = new InboxService(repos, unitOfWork, blobs, events, config.mailDomain, logBackgroundError, tenantLimits, recipients);
  const waiters = new MessageWaiters(events);
  const dnsProvider = new CloudflareDnsProvider(config.domains.dnsProviderApiUrl, DNS_PROVIDER_TIMEOUT_MS);
  const sessionSecret = await loadSessionSecret(config);
  const domains = new DomainService(
    repos,
    resolver,
    dnsProvider,
    inboxes,
    { mailDomain: config.mailDomain, mxHost: config.mxHost, claimDays: config.domains.claimDays, claimSecret: sessionSecret },
    logger,
    recipients,
  );
  const sender = new NodeHttpSender({ timeoutMs: config.webhooks.timeoutMs, connectTimeoutMs: config.webhooks.connectTimeoutMs, allowPrivate: config.webhooks.allowPrivate, userAgent: `Mailroom-Webhooks/${VERSION}` });
  // Claims and attempt outcomes are small writes: on SQLite they commit together (deliveryUnitOfWork).
  // The lease is twice the longest attempt plus slack: a live worker never loses a claim, a dead one's comes back soon.
  const deliveryLeaseMs = config.webhooks.timeoutMs * 2 + 1000;
  const deliveries = new DeliveryService(repos, deliveryUnitOfWork, sender, {
    retryScheduleMs: config.webhooks.retryScheduleMs,
    chatappApiUrl: config.webhooks.chatappApiUrl,
    publicUrl: config.publicUrl,
    leaseMs: deliveryLeaseMs,
    concurrencyPerTenant: config.webhooks.concurrencyPerTenant,
  }, secrets);
  const deliveryWorker = createDeliveryWorker({
    concurrency: config.webhooks.concurrency,
    pollIntervalMs: config.webhooks.pollIntervalMs,
    reservationTtlMs: deliveryLeaseMs,
    claim: (limit) => deliveries.claim(limit),
    deliver: (job) => deliveries.deliver(job).then((outcome) => metrics.deliveryAttempt(outcome.status)),
    logger,
  });
  // One Redis connection for the rate limiter and the login throttles, so every node counts alike.
  const rateLimitRedis = await connectRateLimitRedis(config);
  const failureCounter = (windowMs: number): FailureCounter =>
    rateLimitRedis === undefined ? new MemoryFailureCounter(windowMs) : new RedisFailureCounter(rateLimitRedis, config.realtime.redisPrefix, windowMs);
  const auth = new AuthService(repos, logBackgroundError);
  const emails = new EmailService(repos, blobs, events, logBackgroundError);
  const spam = new SpamCheckService(config.spam.url === undefined ? undefined : new RspamdSpamFilter(config.spam.url), config.spam, repos, blobs, events);
  const accounts = new AccountService(repos, tenants, sessionSecret, { ...DEFAULT_ACCOUNT_SETTINGS, signup: config.accounts.signup }, Date.now, failureCounter(DEFAULT_ACCOUNT_SETTINGS.throttleWindowMs));
  const outboundMail = await openOutboundMail(config);
  const accountLinks = outboundMail && new AccountLinkService(
    repos,
    accounts,
    outboundMail,
    { ...DEFAULT_ACCOUNT_LINK_SETTINGS, publicUrl: config.publicUrl },
    failureCounter(DEFAULT_ACCOUNT_SETTINGS.throttleWindowMs),
    (error) => logger.error({ err: error }, 'account mail not sent'),
  );
  // Configured addresses until start() knows the bound ones (a port of 0 is chosen by the system).
  const listeners: { smtp: ListenerAddress; imap: ListenerAddress } = { smtp: { host: config.smtp.host, port: config.smtp.port }, imap: { host: config.imap.host, port: config.imap.port } };
  const services: AppServices = {
    tenants,
    auth,
    emails,
    messageChecks: new MessageCheckService(emails, new CaniemailHtmlChecker(), new NodeLinkProber({ ...LINK_CHECK_LIMITS, allowPrivate: config.checks.linkCheckAllowPrivate, userAgent: `Mailroom-LinkCheck/${VERSION}` })),
    imap: new ImapMailboxService(repos, auth, inboxes, emails, blobs, {
      failureDelayMs: config.imap.authFailureDelayMs,
      failuresPerAddress: config.imap.authFailuresPerAddress,
      failuresPerIp: config.imap.authFailuresPerIp,
    }, failureCounter(IMAP_FAILURE_WINDOW_MS)),
    inboxes,
    domains,
    inboxMessages: new InboxMessageService(repos, inboxes, waiters),
    emailBulk: new EmailBulkService(repos, blobs, events, inboxes, logBackgroundError),
    inboxKeys: new InboxKeyService(repos, inboxes),
    recipients,
    ingest: new IngestService(analyzer, blobs, (write, afterCommit, pending) => createBatchCommit(db, write, afterCommit, { pending, onCommit: (messages, seconds) => metrics.ingestCommit(messages, seconds) }), events, logBackgroundError, participants, blobs, config.limits.maxAttachmentsPerMessage, spam),
    logs: new ActivityLogService(repos),
    webhooks: new WebhookService(repos, unitOfWork, sender, inboxes, tenantLimits, secrets),
    chatappIntegrations: new ChatappIntegrationService(repos, unitOfWork, sender, inboxes, tenantLimits, secrets),
    deliveries,
    realtime: new RealtimeService(events, connectionGroups, repos, config.realtime.maxBufferBytes, logBackgroundError, config.limits.sseStreams),
    apiKeys: new ApiKeyService(repos),
    environments: new EnvironmentService(repos),
    usage,
    accounts,
    accountLinks,
    loginFree: new LoginFreeSessions(accounts, config.local.dashboardLogin === 'off-on-loopback' ? localAccount?.userId : undefined),
    storage: new CustomStorageService({
      repos,
      unitOfWork,
      limits: tenantLimits,
      secrets,
      stores: blobs,
      openCustom,
      guardEndpoints: config.storage.allowPrivateEndpoints ? async () => undefined : storageEndpointGuard(storageLookup),
      logger,
    }),
    retention: new RetentionService(repos.operations, emails, config.operations.logRetentionDays),
    connection: new ConnectionInfoService({
      mailDomain: config.mailDomain,
      mxHost: config.mxHost,
      publicUrl: config.publicUrl,
      httpTls: config.local.httpTls,
      certificateConfigured: config.tls !== undefined,
      smtpAuth: config.local.smtpAuth,
      smtpStarttls: config.local.smtpStarttls,
      acceptAnyRecipient: config.local.acceptAnyRecipient,
      maxMessageBytes: config.smtp.maxMessageBytes,
      listeners: () => listeners,
    }),
  };
  // SSE heartbeats serve this node's own streams: they run with the http role, the rest with the worker role.
  const httpTasks = createRealtimeTasks(services.realtime, config.realtime.heartbeatMs, logger);
  tasks.push(...httpTasks);
  tasks.push(createPeriodicTask({ name: 'retention-sweep', intervalMs: config.operations.retentionSweepIntervalMs, leases: repos.leases, logger, run: () => services.retention.sweep() }));
  tasks.push(createDomainRecheckTask({ domains, intervalMs: config.domains.recheckIntervalMs, leases: repos.leases, logger }));
  tasks.push(createPeriodicTask({ name: 'inbox-expiry', intervalMs: config.inboxes.sweepIntervalMs, leases: repos.leases, logger, run: () => inboxes.deleteExpired() }));
  tasks.push(createOrphanBlobSweeper({ blobs: serviceBlobs, storageConfigs: repos.storageConfigs, graceMs: config.storage.orphanGraceMs, intervalMs: config.storage.orphanSweepIntervalMs, leases: repos.leases, logger }));
  tasks.push(deliveryWorker);
  if (config.spam.url !== undefined) tasks.push(createPeriodicTask({ name: 'spam-recheck', intervalMs: config.spam.recheckIntervalMs, leases: repos.leases, logger, run: () => spam.recheckDue() }));
  tasks.push(createPeriodicTask({ name: 'session-sweep', intervalMs: SESSION_SWEEP_MS, leases: repos.leases, logger, run: () => services.accounts.sweepExpiredSessions().then(() => undefined) }));
  participants.push(createNotificationParticipant({ worker: deliveryWorker, workerId: deliveries.workerId, leaseMs: deliveryLeaseMs, perTenant: config.webhooks.concurrencyPerTenant }));
  participants.push(usage.participant());

  const tls = await loadTlsMaterial(config);
  const readiness = new ReadinessService(
    [
      { name: 'database', probe: () => repos.operations.ping() },
      ...(rateLimitRedis ? [{ name: 'redis', probe: () => rateLimitRedis.ping() }] : []),
      // A missing key answers false: any answer proves the store is reachable with our credentials.
      { name: 'blobs', probe: () => serviceBlobs.exists('readyz-probe') },
    ],
    READINESS_TIMEOUT_MS,
  );
  const http = await buildHttpServer({
    tls: config.local.httpTls ? tls : undefined,
    logger,
    services,
    version: VERSION,
    trustProxy: config.access.trustProxy,
    rateLimit: config.local.limits ? { limits: tenantLimits, multiplier: config.access.rateLimitMultiplier, redis: rateLimitRedis, redisPrefix: config.realtime.redisPrefix } : undefined,
    operations: { metrics, readiness, metricsToken: config.operations.metricsToken },
    limits: { maxConnections: config.limits.httpMaxConnections, handshakeTimeoutMs: config.limits.tlsHandshakeTimeoutMs },
  });
  const smtp = createSmtpServer({
    hostname: config.mxHost,
    maxMessageBytes: config.smtp.maxMessageBytes,
    greetingDelayMs: config.smtp.greetingDelayMs,
    tls,
    recipients,
    ingest: services.ingest,
    logger,
    metrics,
    drainMs: config.operations.smtpDrainMs,
    limits: config.limits.smtp,
    spoolDir: await prepareSpoolDir(join(config.dataDir, 'spool')),
    modes: { auth: config.local.smtpAuth, starttls: config.local.smtpStarttls, certificateConfigured: config.tls !== undefined },
  });

  const imap = createImapServer({
    tls,
    service: services.imap,
    events,
    logger,
    maxConnectionsPerInbox: config.imap.maxConnectionsPerInbox,
    idleTimeoutMs: config.imap.idleTimeoutMs,
    limits: { ...config.limits.imap, handshakeTimeoutMs: config.limits.tlsHandshakeTimeoutMs },
  });

  metrics.observe({
    sseConnections: () => services.realtime.connectionCount,
    imapSessions: () => imap.connectionCount(),
    deliveryQueueDepth: () => repos.deliveries.countQueued(),
  });
  const roles = config.operations.roles;
  const runsTask = (task: BackgroundTask) => roles.has('worker') || (roles.has('http') && httpTasks.includes(task));

  const ctx: AppContext = { tasks, config, logger, db, repos, blobs, events, services, metrics, readiness, localAccount };
  return {
    ctx,
    http,
    smtp,
    async start() {
      let httpAddress = NOT_LISTENING;
      if (roles.has('http')) {
        await http.listen({ host: config.http.host, port: config.http.port });
        const address = http.server.address() as AddressInfo;
        httpAddress = { host: address.address, port: address.port };
      }
      const smtpAddress = roles.has('smtp') ? await listenSmtp(smtp, config.smtp.host, config.smtp.port) : NOT_LISTENING;
      const imapAddress = roles.has('imap') ? await imap.listen(config.imap.port, config.imap.host) : NOT_LISTENING;
      if (smtpAddress.port > 0) listeners.smtp = smtpAddress;
      if (imapAddress.port > 0) listeners.imap = imapAddress;
      for (const task of tasks) if (runsTask(task)) task.start();
      warnIfFewDescriptors(config, logger);
      return { http: httpAddress, smtp: smtpAddress, imap: imapAddress };
    },
    /**
     * Graceful (SIGTERM): /readyz turns 503 at once; SMTP stops accepting, transactions in DATA finish
     * (up to MAILROOM_SHUTDOWN_SMTP_DRAIN_MS, then 421); deliveries in flight finish and are recorded
     * (unstarted ones stay queued for other nodes); SSE streams get a final event; the database closes last.
     */
    async stop() {
      readiness.markStopping();
      await Promise.all([new Promise<void>((resolve) => smtp.close(() => resolve())), imap.close()]);
      await analyzer.close();
      await Promise.all(tasks.map((task) => task.stop()));
      await deliveries.releaseClaims().catch(logBackgroundError);
      sender.close();
      spam.close();
      outboundMail?.close();
      // Long polls would hold http.close() for up to a minute: answer them (204) now.
      waiters.close();
      // SSE streams get a final event and end, so http.close() does not wait on them.
      await services.realtime.close();
      await http.close();
      await events.close();
      await storageGuard?.proxy.close();
      await closeServiceBlobStore(serviceBlobs);
      await rateLimitRedis?.quit();
      await db.close();
    },
  };
}
