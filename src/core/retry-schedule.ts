/** Spec 6.3: retry 1 after 5 s, then 30 s, 2 min, 10 min, 30 min; then the delivery has failed. */
export const DEFAULT_RETRY_SCHEDULE_MS: readonly number[] = [5_000, 30_000, 120_000, 600_000, 1_800_000];

/** Delay before the next attempt after `attemptsMade` attempts, or undefined when retries are used up. */
export function nextRetryDelay(schedule: readonly number[], attemptsMade: number): number | undefined {
  return schedule[attemptsMade - 1];
}
