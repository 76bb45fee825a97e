/**
 * Issue 15's "one message on an idle server is accepted within 10 ms of the end of DATA", measured
 * as a sender sees it: a raw SMTP client sends a 10 KB message, and the time runs from writing the
 * final `.` to reading the 250. Samples are spaced out so every one meets an idle server.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { RawSmtpClient, dotStuff } from '../../test/helpers/raw-smtp.js';

export interface LatencySummary {
  samples: number;
  p50Ms: number;
  p95Ms: number;
  maxMs: number;
}

export function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? Number.NaN;
}

export function summarise(values: number[]): LatencySummary {
  const sorted = [...values].sort((a, b) => a - b);
  return { samples: sorted.length, p50Ms: percentile(sorted, 50), p95Ms: percentile(sorted, 95), maxMs: sorted.at(-1) ?? Number.NaN };
}

function tenKilobyteMessage(from: string, to: string, i: number): Buffer {
  const line = 'The quick brown fox jumps over the lazy dog, and the idle server answers at once.\n';
  const head = `From: ${from}\nTo: ${to}\nSubject: idle sample ${i}\nMessage-ID: <idle-${i}-${Date.now()}@bench.localhost>\n\n`;
  return dotStuff(head + line.repeat(Math.ceil(10_240 / line.length)));
}

/** `samples` messages on one connection (after `warmup` more), each after `gapMs` of quiet; returns end of DATA → 250 in ms. */
export async function idleAcceptLatency(port: number, from: string, to: string, samples = 50, warmup = 5, gapMs = 50): Promise<LatencySummary> {
  const { client } = await RawSmtpClient.connect(port);
  try {
    await client.envelope(from, [to]);
    const latencies: number[] = [];
    for (let i = 0; i < warmup + samples; i++) {
      if (i > 0) {
        const mail = await client.command(`MAIL FROM:<${from}>`);
        const rcpt = await client.command(`RCPT TO:<${to}>`);
        if (mail.code !== 250 || rcpt.code !== 250) throw new Error(`envelope refused: ${mail.code} ${rcpt.code}`);
      }
      const go = await client.command('DATA');
      if (go.code !== 354) throw new Error(`DATA → ${go.code} ${go.text}`);
      client.write(tenKilobyteMessage(from, to, i));
      await sleep(gapMs);
      const started = performance.now();
      client.write('.\r\n');
      const reply = await client.reply();
      const ms = performance.now() - started;
      if (reply.code !== 250) throw new Error(`end of DATA → ${reply.code} ${reply.text}`);
      if (i >= warmup) latencies.push(ms);
    }
    return summarise(latencies);
  } finally {
    await client.quit();
  }
}
