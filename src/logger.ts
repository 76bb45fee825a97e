import { pino, type Logger as PinoLogger } from 'pino';
import type { LogLevel } from './config/config.js';

export type Logger = PinoLogger;

/** Structured JSON logs; secrets are redacted wherever they could appear. */
export function createLogger(level: LogLevel): Logger {
  return pino({
    level,
    redact: {
      paths: ['req.headers["x-api-key"]', 'req.headers.authorization', 'req.query.token', 'apiKey', 'key', 'secret', 'password'],
      censor: '[redacted]',
    },
  });
}
