/**
 * SSE fan-out: 1,000 concurrent SSE connections of one tenant on one node (`mailroom serve` in a
 * child process), then messages over SMTP one at a time; for each, the time from the SMTP client
 * receiving `250` to the last of the 1,000 clients receiving its `email.received` event. Prints
 * p50/p99 and the server's resident memory per idle connection. Targets: p99 < 50 ms, < 30 KB.
 *
 *   npm run bench:sse -- [--connections 1000] [--messages 100] [--from dist|src]
 *
 * Ingest publishes before SMTP answers 250, so a client can get the event before the 250 arrives;
 * such samples count as 0 ms.
 */
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { parseArgs } from 'node:util';
import nodemailer from 'nodemailer';
import { startDnsServer } from '../test/helpers/dns-server.js';
import { buildMailroom, startMailroom, type MailroomBuild } from './support/mailroom.js';

const { values: options } = parseArgs({
  options: {
    connections: { type: 'string', default: '1000' },
    messages: { type: 'string', default: '100' },
    from: { type: 'string', default: 'dist' },
  },
});
const CONNECTIONS = Number(options.connections);
const MESSAGES = Number(options.messages);
const OPEN_BATCH = 50;
const RECEIVED = /"type":"email\.received","timestamp":"[^"]*","data":\{"id":"([0-9a-f-]{36})"/g;

function currentRssKb(pid: number): number {
  return Number(/VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN);
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}

/** Arrival times by email id, across every client; resolves a waiter when all clients have one. */
class Arrivals {
  private readonly seen = new Map<string, { count: number; first: number; last: number }>();
  private readonly waiters = new Map<string, (times: { first: number; last: number }) => void>();

  record(emailId: string): void {
    const now = performance.now();
    const entry = this.seen.get(emailId) ?? { count: 0, first: now, last: now };
    entry.count += 1;
    entry.last = now;
    this.seen.set(emailId, entry);
    if (entry.count === CONNECTIONS) this.waiters.get(emailId)?.(entry);
  }

  all(emailId: string): Promise<{ first: number; last: number }> {
    const entry = this.seen.get(emailId);
    if (entry?.count === CONNECTIONS) return Promise.resolve(entry);
    return new Promise((resolve) => this.waiters.set(emailId, resolve));
  }
}

function openStream(url: string, apiKey: string, agent: Agent, arrivals: Arrivals): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent, headers: { 'x-api-key': apiKey } }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`stream answered ${res.statusCode}`));
      let pending = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        pending += chunk;
        const end = pending.lastIndexOf('\n\n');
        if (end < 0) return;
        const complete = pending.slice(0, end);
        pending = pending.slice(end + 2);
        if (complete.includes('"type":"connected"')) resolve();
        for (const match of complete.matchAll(RECEIVED)) arrivals.record(match[1] as string);
      });
    });
    req.on('error', reject);
    req.end();
  });
}

async function main(): Promise<void> {
  const build = options.from as MailroomBuild;
  if (build === 'dist') buildMailroom();
  const dns = await startDnsServer({});
  // 1,000 connections in a few seconds would exceed the free plan's 100 requests per minute.
  const mailroom = await startMailroom({ dnsServer: dns.address, build, env: { MAILROOM_LOG_LEVEL: 'warn', MAILROOM_RATE_LIMIT_MULTIPLIER: '100' } });
  const agent = new Agent({ rejectUnauthorized: false, keepAlive: false, maxSockets: Infinity });
  const arrivals = new Arrivals();
  const smtp = nodemailer.createTransport({ host: '127.0.0.1', port: mailroom.smtpPort, secure: false, pool: true, maxConnections: 1, tls: { rejectUnauthorized: false } });
  try {
    const url = `${mailroom.apiUrl}/realtime/events`;
    await openStream(url, mailroom.apiKey, agent, new Arrivals()); // warms up TLS and the route
    const rssBefore = currentRssKb(mailroom.server.pid);
    for (let opened = 0; opened < CONNECTIONS; opened += OPEN_BATCH) {
      await Promise.all(Array.from({ length: Math.min(OPEN_BATCH, CONNECTIONS - opened) }, () => openStream(url, mailroom.apiKey, agent, arrivals)));
    }
    await new Promise((resolve) => setTimeout(resolve, 1_000)); // let the server settle before reading RSS
    const perConnectionKb = (currentRssKb(mailroom.server.pid) - rssBefore) / CONNECTIONS;
    console.log(`${CONNECTIONS} SSE connections open; server RSS per idle connection: ${perConnectionKb.toFixed(1)} KB (target < 30 KB)`);

    const samples: number[] = [];
    const spreads: number[] = [];
    let early = 0;
    for (let i = 0; i < MESSAGES; i += 1) {
      const info = await smtp.sendMail({ from: 'bench@sender.bench.example', to: mailroom.inboxAddress, subject: `fan-out ${i}`, text: 'hello' });
      const accepted = performance.now();
      const emailId = /<([0-9a-f-]{36})>/.exec(info.response)?.[1] as string;
      const { first, last } = await arrivals.all(emailId);
      if (last < accepted) early += 1;
      samples.push(Math.max(0, last - accepted));
      spreads.push(last - first);
    }
    samples.sort((a, b) => a - b);
    spreads.sort((a, b) => a - b);
    console.log(
      `SMTP 250 → last of ${CONNECTIONS} clients has email.received, ${MESSAGES} messages: p50 ${percentile(samples, 50).toFixed(1)} ms, p99 ${percentile(samples, 99).toFixed(1)} ms, max ${samples.at(-1)?.toFixed(1)} ms (target p99 < 50 ms; ${early} arrived before the 250)`,
    );
    // The clients share this one process: the spread is mostly its own time to read 1,000 TLS streams.
    console.log(`first → last client, same event: p50 ${percentile(spreads, 50).toFixed(1)} ms, p99 ${percentile(spreads, 99).toFixed(1)} ms`);
  } finally {
    smtp.close();
    agent.destroy();
    await mailroom.stop();
    await dns.close();
  }
}

await main();
