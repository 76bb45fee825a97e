/**
 * Failed attempts per key within a fixed sliding window (login throttles). In this process, or in
 * Redis when it is configured, so every node counts the same failures.
 */
export interface FailureCounter {
  count(key: string): Promise<number>;
  fail(key: string): Promise<void>;
}
