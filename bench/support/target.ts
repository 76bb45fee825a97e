import type { ChildServer } from './child-server.js';
import type { IdleLatency } from './idle-latency.js';

/** One SMTP server under test, started fresh for each measurement. */
export interface BenchTarget {
  port: number;
  /** The recipient it accepts. */
  to: string;
  /** The server's process, for its peak memory and CPU time. */
  process: ChildServer;
  /** The folder it writes its files in, where the disk probe creates its own (disk-probe.ts); none for a server that writes none. */
  filesAt?: string;
  /** Mailroom only: issue 15's single-message latencies on the idle server (idle-latency.ts). */
  idleLatency?(): Promise<IdleLatency>;
  /** Stops the server and returns how many messages it holds (or accepted). */
  stop(): Promise<number>;
}
