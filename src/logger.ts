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

/** Structured JSON logs; secrets are redacted wherever they could appear. `destination` is for tests that read the output. */
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
  return destination === undefined ? pino(options) : pino(options, destination);
}
