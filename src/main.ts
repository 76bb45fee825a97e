import { createApp } from './app.js';
import { ConfigError, loadConfig } from './config/config.js';
import { readEnv } from './config/env.js';

const SHUTDOWN_DEADLINE_MS = 15_000;

/** Starts the service; exits 78 (EX_CONFIG) on a bad setting, 1 on any other start failure. */
export async function serve(): Promise<void> {
  let config;
  try {
    config = loadConfig(readEnv());
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`mailroom: invalid configuration: ${error.message}`);
      process.exit(78);
    }
    throw error;
  }
  const app = await createApp(config);
  const addresses = await app.start();
  const host = config.http.host === '0.0.0.0' ? 'localhost' : config.http.host;
  app.ctx.logger.info({ http: addresses.http, smtp: addresses.smtp, imap: addresses.imap, database: config.db.dialect }, 'mailroom started');
  // A listener this node's roles leave off (MAILROOM_ROLES) has port 0 and is not listed.
  const lines = [
    addresses.http.port > 0 && `  Dashboard and API: https://${host}:${addresses.http.port}/  (docs: /api/v1/docs)`,
    addresses.smtp.port > 0 && `  SMTP:              ${addresses.smtp.host}:${addresses.smtp.port}  (mail domain ${config.mailDomain}: inboxes are <prefix>@${config.mailDomain}; sign up in the dashboard for your first one)`,
    addresses.imap.port > 0 && `  IMAP (TLS):        ${addresses.imap.host}:${addresses.imap.port}`,
  ].filter(Boolean);
  console.log(`Mailroom is running (${[...config.operations.roles].join(', ')}).\n${lines.join('\n')}`);

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.ctx.logger.info({ signal }, 'shutting down');
    setTimeout(() => process.exit(1), SHUTDOWN_DEADLINE_MS).unref();
    app.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        app.ctx.logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
}
