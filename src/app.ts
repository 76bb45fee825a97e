import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { SMTPServer } from 'smtp-server';
import type { AppConfig } from './config/config.js';
import { createDatabase, migrateToLatestOrThrow, type Db } from './adapters/db/database.js';
import { createRepositories, createUnitOfWork, type Repositories } from './adapters/db/repositories/index.js';
import { DiskBlobStore } from './adapters/blobs/disk.blob-store.js';
import { MemoryEventBus } from './adapters/events/memory.event-bus.js';
import { createNodeDnsResolver } from './adapters/dns/node.dns-resolver.js';
import { MailauthAuthenticator } from './adapters/mail/mailauth.authenticator.js';
import { PostalMimeParser } from './adapters/mail/postal.mime-parser.js';
import { loadTlsMaterial } from './adapters/tls/certificate.js';
import { createLogger, type Logger } from './logger.js';
import type { BlobStore } from './ports/blob-store.js';
import type { DnsResolve } from './ports/dns-resolver.js';
import type { EventBus } from './ports/event-bus.js';
import type { MailAuthenticator } from './ports/mail-authenticator.js';
import type { MimeParser } from './ports/mime-parser.js';
import { ActivityLogService } from './services/activity-log.service.js';
import { AuthService } from './services/auth.service.js';
import { EmailService } from './services/email.service.js';
import { InboxService } from './services/inbox.service.js';
import { IngestService } from './services/ingest.service.js';
import { RecipientService } from './services/recipient.service.js';
import { TenantService } from './services/tenant.service.js';
import { buildHttpServer } from './transports/http/http.server.js';
import { createSmtpServer } from './transports/smtp/smtp.server.js';
import { VERSION } from './version.js';
import type { IngestParticipant } from './services/ingest-participant.js';
import type { BackgroundTask } from './workers/periodic-task.js';

export interface AppServices {
  tenants: TenantService;
  auth: AuthService;
  emails: EmailService;
  inboxes: InboxService;
  recipients: RecipientService;
  ingest: IngestService;
  logs: ActivityLogService;
}

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
}

export interface App {
  ctx: AppContext;
  http: FastifyInstance;
  smtp: SMTPServer;
  start(): Promise<ListeningAddresses>;
  stop(): Promise<void>;
}

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

/** The composition root: builds every adapter and service in dependency order. Nothing listens until start(). */
export async function createApp(config: AppConfig, overrides: AppOverrides = {}): Promise<App> {
  const logger = overrides.logger ?? createLogger(config.logLevel);
  const logBackgroundError = (error: unknown) => logger.error({ err: error }, 'background task failed');

  const db = createDatabase(config.db);
  await migrateToLatestOrThrow(db);
  const repos = createRepositories(db.kysely);
  const unitOfWork = createUnitOfWork(db.kysely);
  const blobs = overrides.blobs ?? new DiskBlobStore(join(config.dataDir, 'blobs'));
  const events = overrides.events ?? new MemoryEventBus(logBackgroundError);
  const resolver = overrides.resolver ?? createNodeDnsResolver(config.dns.servers, config.dns.timeoutMs);
  const parser = overrides.parser ?? new PostalMimeParser();
  const authenticator = overrides.authenticator ?? new MailauthAuthenticator(resolver, config.mxHost, config.dns.timeoutMs * 3);

  const participants: IngestParticipant[] = [];
  const tasks: BackgroundTask[] = [];
  const tenants = new TenantService(repos, unitOfWork);
  const recipients = new RecipientService(repos, tenants);
  const services: AppServices = {
    tenants,
    auth: new AuthService(repos, logBackgroundError),
    emails: new EmailService(repos, blobs, events, logBackgroundError),
    inboxes: new InboxService(repos, config.mailDomain),
    recipients,
    ingest: new IngestService(parser, authenticator, blobs, unitOfWork, events, logBackgroundError, participants),
    logs: new ActivityLogService(repos),
  };

  const tls = await loadTlsMaterial(config);
  const http = await buildHttpServer({ tls, logger, services, version: VERSION });
  const smtp = createSmtpServer({
    hostname: config.mxHost,
    maxMessageBytes: config.smtp.maxMessageBytes,
    greetingDelayMs: config.smtp.greetingDelayMs,
    tls,
    recipients,
    ingest: services.ingest,
    logger,
  });

  const ctx: AppContext = { tasks, config, logger, db, repos, blobs, events, services };
  return {
    ctx,
    http,
    smtp,
    async start() {
      await http.listen({ host: config.http.host, port: config.http.port });
      const httpAddress = http.server.address() as AddressInfo;
      const smtpAddress = await listenSmtp(smtp, config.smtp.host, config.smtp.port);
      for (const task of tasks) task.start();
      return { http: { host: httpAddress.address, port: httpAddress.port }, smtp: smtpAddress };
    },
    async stop() {
      await new Promise<void>((resolve) => smtp.close(() => resolve()));
      await Promise.all(tasks.map((task) => task.stop()));
      await http.close();
      await events.close();
      await db.close();
    },
  };
}
