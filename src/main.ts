import { setFlagsFromString } from 'node:v8';
import { createApp } from './app.js';
import { ConfigError, loadConfig, type AppConfig } from './config/config.js';
import type { RawEnv } from './config/env.js';
import { assertLocalModeIsPrivate } from './config/local-settings.js';
import { localBanner, serviceBanner } from './start-banner.js';

const SHUTDOWN_DEADLINE_MS = 15_000;

export type ServeMode = 'service' | 'local';

function configOrExit(env: RawEnv, mode: ServeMode): AppConfig {
  try {
    const config = loadConfig(env);
    if (mode === 'local') assertLocalModeIsPrivate(config.local, config.http.host);
    return config;
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`mailroom: invalid configuration: ${error.message}`);
      process.exit(78);
    }
    throw error;
  }
}

/** A listen error on a busy port, as one line naming the port and the setting that moves it. */
function busyPortMessage(error: unknown, config: AppConfig): string | undefined {
  const { code, port } = error as { code?: string; port?: number };
  if (code !== 'EADDRINUSE' && code !== 'EACCES') return undefined;
  const listeners = [
    ['MAILROOM_HTTP_PORT', config.http],
    ['MAILROOM_SMTP_PORT', config.smtp],
    ['MAILROOM_IMAP_PORT', config.imap],
  ] as const;
  const [setting, listener] = listeners.find(([, l]) => l.port === port) ?? ['the port setting', { host: '?', port }];
  const problem = code === 'EADDRINUSE' ? 'is already in use (is Mailroom or another server running?)' : 'needs privileges to bind';
  return `mailroom: port ${listener.port} on ${listener.host} ${problem}; stop the other program or set ${setting} to another port`;
}

/**
 * With memory to spare V8 lets the old generation grow to up to four times its live size between
 * full collections, and mail in flight (promoted while it waits for its fsync and commit) made that
 * ~40 MB of garbage plus the buffers it holds. Collecting at 1.35x bounds the peak (docs/decisions.md
 * D34, D61: 1.5x → 1.35x took ~6 MB more at no GC time the benches show; 1.25x cost GC thread time).
 * V8 reads the flag each time it sets the next collection's limit, so setting it now applies from
 * the first collection; an operator's own setting (NODE_OPTIONS or node's arguments) wins.
 */
function boundOldGenerationGrowth(): void {
  const given = [...process.execArgv, process.env.NODE_OPTIONS ?? ''].some((arg) => /--heap[-_]growing[-_]percent/.test(arg));
  if (!given) setFlagsFromString('--heap-growing-percent=35');
}

/** Starts the service; exits 78 (EX_CONFIG) on a bad setting, 1 on any other start failure. */
export async function serve(env: RawEnv, mode: ServeMode = 'service'): Promise<void> {
  const config = configOrExit(env, mode);
  boundOldGenerationGrowth();
  const app = await createApp(config);
  let addresses;
  try {
    addresses = await app.start();
  } catch (error) {
    const busy = busyPortMessage(error, config);
    if (busy === undefined) throw error;
    console.error(busy);
    process.exit(1);
  }
  app.ctx.logger.info({ http: addresses.http, smtp: addresses.smtp, imap: addresses.imap, database: config.db.dialect }, 'mailroom started');
  const account = app.ctx.localAccount;
  console.log(mode === 'local' && account !== undefined ? localBanner(config, addresses, account) : serviceBanner(config, addresses));

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
