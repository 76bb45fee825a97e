import { createHash } from 'node:crypto';

/**
 * CPU milliseconds this process takes for a fixed piece of work (20,000 SHA-256 hashes of 10 KB and
 * small objects). On a shared VM the same work took 150–215 ms from one minute to the next, and every
 * server's CPU per message moved with it; printed beside a row, it tells a slow minute of the host
 * from a slow server (bench/README.md).
 */
export function hostSpeedMs(): number {
  const buffer = Buffer.alloc(10_240, 7);
  const started = process.cpuUsage();
  let sink = 0;
  for (let i = 0; i < 20_000; i++) {
    sink += createHash('sha256').update(buffer).digest()[0] as number;
    sink += { index: i, text: String(i) }.text.length;
  }
  const used = process.cpuUsage(started);
  // Keeps the loop's result alive, so none of it is optimised away.
  if (sink < 0) throw new Error('unreachable');
  return (used.user + used.system) / 1000;
}
