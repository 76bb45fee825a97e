/**
 * The ceiling for the API benchmark: a bare Fastify route over the same TLS certificate that
 * returns the same page of emails from memory (no key lookup, no database, no rate limit).
 * Env: BARE_TLS_CERT, BARE_TLS_KEY (PEM paths), BARE_BODY_FILE (the JSON to serve).
 */
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';

const env = (name: string): string => {
  const value = process.env[name];
  if (value === undefined) throw new Error(`${name} is not set`);
  return value;
};

const page: unknown = JSON.parse(readFileSync(env('BARE_BODY_FILE'), 'utf8'));
const app = Fastify({ https: { cert: readFileSync(env('BARE_TLS_CERT')), key: readFileSync(env('BARE_TLS_KEY')) } });
app.get('/api/v1/emails', async () => page);
await app.listen({ host: '127.0.0.1', port: 0 });
console.log(`bare JSON server listening on https://127.0.0.1:${(app.server.address() as AddressInfo).port}/`);
process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
