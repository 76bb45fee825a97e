/**
 * Webhook delivery: 5,000 emails go in over SMTP and a local node:http receiver takes the webhook
 * POSTs. Prints the latency from the SMTP client receiving `250` to the receiver getting the POST
 * (p50/p99), the delivery throughput, and the SMTP ingest rate with one webhook attached against the
 * rate with none (smtp-source, persistent sessions). Targets: p50 < 20 ms; ingest with a webhook at
 * least 80% of the rate without.
 *
 *   npm run bench:webhook -- [--messages 5000] [--sessions 20] [--from dist|src] [--only sqlite|postgres]
 *
 * PostgreSQL runs too when MAILROOM_BENCH_DATABASE_URL (or MAILROOM_TEST_DATABASE_URL) is set.
 */
import { createServer, type Server } from 'node:http';
import { request } from 'node:https';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import nodemailer from 'nodemailer';
import { BENCH_SENDER, prepareSmtpBench, startSenderDns } from './support/sender.js';
import { startMailroom, type MailroomBuild, type MailroomInstance } from './support/mailroom.js';
import { runSmtpSource } from './support/smtp-source.js';

const { values: options } = parseArgs({
  options: {
    messages: { type: 'string', default: '5000' },
    sessions: { type: 'string', default: '20' },
    from: { type: 'string', default: 'dist' },
    only: { type: 'string', description: 'sqlite or postgres' },
  },
});
const MESSAGES = Number(options.messages);
const SESSIONS = Number(options.sessions);
const BUILD = options.from as MailroomBuild;
const POSTGRES_URL = process.env.MAILROOM_BENCH_DATABASE_URL ?? process.env.MAILROOM_TEST_DATABASE_URL;
const ENV = { MAILROOM_ALLOW_PRIVATE_WEBHOOKS: '1', MAILROOM_LOG_LEVEL: 'error' };

/** The customer's endpoint: answers 200 at once and notes when each email's POST arrived. */
interface Receiver {
  url: string;
  arrivals: Map<string, number>;
  /** Resolves when `count` distinct emails have arrived. */
  whenReceived(count: number): Promise<void>;
  close(): Promise<void>;
}

async function startReceiver(): Promise<Receiver> {
  const arrivals = new Map<string, number>();
  let waiting: { count: number; resolve: () => void } | undefined;
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      arrivals.set(String(req.headers['x-email-id']), performance.now());
      res.writeHead(200).end();
      if (waiting && arrivals.size >= waiting.count) waiting.resolve();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    arrivals,
    whenReceived: (count) => (arrivals.size >= count ? Promise.resolve() : new Promise((resolve) => (waiting = { count, resolve }))),
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

function createWebhook(instance: MailroomInstance, url: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request(`${instance.apiUrl}/webhooks`, { method: 'POST', rejectUnauthorized: false, headers: { 'x-api-key': instance.apiKey, 'content-type': 'application/json' } }, (res) => {
      res.resume();
      res.once('end', () => ((res.statusCode ?? 0) === 201 ? resolve() : reject(new Error(`POST /webhooks answered ${res.statusCode}`))));
    });
    req.once('error', reject);
    req.end(JSON.stringify({ url }));
  });
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;

/** SMTP 250 → webhook POST latency and delivery throughput, sending from SESSIONS pooled connections. */
async function measureLatency(start: () => Promise<MailroomInstance>): Promise<{ p50: number; p99: number; perSecond: number; before250: number }> {
  const receiver = await startReceiver();
  const instance = await start();
  const smtp = nodemailer.createTransport({ host: '127.0.0.1', port: instance.smtpPort, secure: false, pool: true, maxConnections: SESSIONS, maxMessages: Infinity, tls: { rejectUnauthorized: false } });
  try {
    await createWebhook(instance, receiver.url);
    const accepted = new Map<string, number>();
    const began = performance.now();
    let next = 0;
    const session = async () => {
      while (next < MESSAGES) {
        const i = next++;
        const info = await smtp.sendMail({ from: BENCH_SENDER, to: instance.inboxAddress, subject: `webhook bench ${i}`, text: `Message ${i}: your code is ${100000 + i}.` });
        accepted.set(/<([0-9a-f-]{36})>/.exec(info.response)?.[1] ?? '', performance.now());
      }
    };
    await Promise.all(Array.from({ length: SESSIONS }, session));
    await receiver.whenReceived(MESSAGES);
    const latencies = [...accepted].map(([id, at]) => (receiver.arrivals.get(id) ?? NaN) - at).sort((a, b) => a - b);
    const lastArrival = Math.max(...receiver.arrivals.values());
    return {
      p50: Math.max(0, percentile(latencies, 50)),
      p99: Math.max(0, percentile(latencies, 99)),
      perSecond: MESSAGES / ((lastArrival - began) / 1000),
      before250: latencies.filter((l) => l < 0).length,
    };
  } finally {
    smtp.close();
    await instance.stop();
    await receiver.close();
  }
}

/**
 * smtp-source ingest rate (messages/s) with or without one webhook attached, and the server's CPU time
 * per message including delivering it (the rate alone swings with whatever else the machine runs).
 */
async function measureIngest(start: () => Promise<MailroomInstance>, withWebhook: boolean): Promise<{ rate: number; cpuMs: number }> {
  const receiver = await startReceiver();
  const instance = await start();
  try {
    if (withWebhook) await createWebhook(instance, receiver.url);
    const send = (messages: number) => runSmtpSource({ port: instance.smtpPort, to: instance.inboxAddress, from: BENCH_SENDER, messages, sessions: SESSIONS, bodyBytes: 2048, persistent: true });
    await send(200);
    if (withWebhook) await receiver.whenReceived(200);
    const cpuBefore = instance.server.cpuSeconds();
    const seconds = await send(MESSAGES);
    if (withWebhook) await receiver.whenReceived(MESSAGES + 200);
    return { rate: MESSAGES / seconds, cpuMs: ((instance.server.cpuSeconds() - cpuBefore) * 1000) / MESSAGES };
  } finally {
    await instance.stop();
    await receiver.close();
  }
}

async function main(): Promise<void> {
  prepareSmtpBench(BUILD);
  const dns = await startSenderDns();
  const dialects: Array<[string, string | undefined]> = [['sqlite', undefined]];
  if (POSTGRES_URL) dialects.push(['postgres', POSTGRES_URL]);
  else console.log('PostgreSQL skipped: set MAILROOM_BENCH_DATABASE_URL (or MAILROOM_TEST_DATABASE_URL) to include it.');
  try {
    for (const [dialect, postgresUrl] of dialects.filter(([name]) => options.only === undefined || options.only === name)) {
      const start = () => startMailroom({ dnsServer: dns.address, postgresUrl, build: BUILD, env: ENV });
      const latency = await measureLatency(start);
      const without = await measureIngest(start, false);
      const withOne = await measureIngest(start, true);
      const ms = (value: number) => `${value.toFixed(1)} ms`;
      console.log(`webhook delivery (${dialect}, ${MESSAGES} emails, ${SESSIONS} SMTP sessions)`);
      console.log(`  SMTP 250 -> webhook POST: p50 ${ms(latency.p50)}  p99 ${ms(latency.p99)}  (${latency.before250} arrived before the 250 reached the client)`);
      console.log(`  delivered: ${latency.perSecond.toFixed(0)} emails/s from first send to last POST`);
      const ratio = withOne.rate / without.rate;
      console.log(`  ingest (smtp-source): ${without.rate.toFixed(0)} msg/s with no webhook, ${withOne.rate.toFixed(0)} msg/s with one (${(ratio * 100).toFixed(0)}%)`);
      console.log(`  server CPU per email: ${without.cpuMs.toFixed(2)} ms with no webhook, ${withOne.cpuMs.toFixed(2)} ms with one (delivery included)`);
      console.log(`  targets: p50 < 20 ms ${latency.p50 < 20 ? 'met' : 'NOT met'}; ingest with a webhook >= 80% ${ratio >= 0.8 ? 'met' : 'NOT met'}`);
    }
  } finally {
    await dns.close();
  }
}

await main();
