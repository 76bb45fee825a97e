import { randomInt, randomUUID } from 'node:crypto';

/** How far back the clock may step (an NTP correction) before ids stop borrowing the last millisecond. */
const CLOCK_STEP_TOLERANCE_MS = 1000;
const COUNTER_MAX = 0xfff;
/** A new millisecond's counter starts in the lower half of its 12 bits, so it has room to count up. */
const COUNTER_SEED_RANGE = 0x800;

let lastMs = -1;
let lastCounter = 0;

/**
 * A UUID version 7 (RFC 9562): the millisecond clock in its first 48 bits, a 12-bit counter, then 62 random bits.
 * Rows written every second (emails, inbox messages, activity logs) use it as their id so each of
 * their id indexes grows at its right edge: a group commit of random (v4) ids dirtied one leaf page
 * per row per index, and every dirty page is a WAL frame written at COMMIT (docs/decisions.md D31).
 * Lists sort newest first by creation time and then by id, so ids made in one millisecond by this process
 * count up (RFC 9562 method 1): two inboxes created in the same millisecond still list in creation order.
 */
export function timeOrderedUuid(now = Date.now()): string {
  let ms = now;
  let counter: number;
  if (now <= lastMs && lastMs - now < CLOCK_STEP_TOLERANCE_MS) {
    ms = lastMs;
    counter = lastCounter + 1;
    if (counter > COUNTER_MAX) {
      ms += 1;
      counter = 0;
    }
  } else {
    counter = randomInt(COUNTER_SEED_RANGE);
  }
  lastMs = ms;
  lastCounter = counter;
  // A v4 UUID's random bits, its variant bits included; the clock, the version digit and the counter replace the rest.
  const random = randomUUID();
  const clock = ms.toString(16).padStart(12, '0');
  return `${clock.slice(0, 8)}-${clock.slice(8)}-7${counter.toString(16).padStart(3, '0')}${random.slice(18)}`;
}
