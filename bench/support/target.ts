import type { ChildServer } from './child-server.js';

/** One SMTP server under test, started fresh for each measurement. */
export interface BenchTarget {
  port: number;
  /** The recipient it accepts. */
  to: string;
  /** The server's process, for its peak memory and CPU time. */
  process: ChildServer;
  /** Stops the server and returns how many messages it holds (or accepted). */
  stop(): Promise<number>;
}
