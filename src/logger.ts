import { pino, type DestinationStream, type Logger as PinoLogger } from 'pino';
import type { LogLevel } from './config/config.js';

export type Logger = PinoLogger;

/** `?token=mr_…` (SSE clients that cannot set headers) must never reach a log line. */
export const redactTokenParam = (url: string): string => url.replace(/([?&]token=)[^&#]*/gi, '$1[redacted]');

interface LoggedRequest {
  method?: string;
  url?: string;
  id?: string;
}

/**
 * Structured JSON logs; secrets are redacted wherever they could appear. `destination` is for tests
 * that read the output. Stdout is written asynchronously: a synchronous write per accepted message
 * held the single ingest thread; pino flushes what is buffered when the process exits (on-exit
 * handlers run on process.exit and after uncaught errors; only SIGKILL can lose the last lines).
 */
export function createLogger(level: LogLevel, destination?: DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    level,
    serializers: {
      req: (req: LoggedRequest) => ({ id: req.id, method: req.method, url: req.url === undefined ? undefined : redactTokenParam(req.url) }),
    },
    redact: {
      paths: ['req.headers["x-api-key"]', 'req.headers.authorization', 'req.query.token', 'apiKey', 'key', 'secret', 'password'],
      censor: '[redacted]',
    },
  };
  return pino(options, destination ?? pino.destination({ dest: 1, sync: false }));
}
