import { randomUUID } from 'node:crypto';

/**
 * A UUID version 7 (RFC 9562): the millisecond clock in its first 48 bits, then 74 random bits.
 * Rows written every second (emails, inbox messages, activity logs) use it as their id so each of
 * their id indexes grows at its right edge: a group commit of random (v4) ids dirtied one leaf page
 * per row per index, and every dirty page is a WAL frame written at COMMIT (docs/decisions.md D31).
 * 74 random bits keep the ids as unguessable as the API needs; within one millisecond they are unordered.
 */
export function timeOrderedUuid(now = Date.now()): string {
  // A v4 UUID's random bits, its variant bits included; only the clock and the version digit are replaced.
  const random = randomUUID();
  const clock = now.toString(16).padStart(12, '0');
  return `${clock.slice(0, 8)}-${clock.slice(8)}-7${random.slice(15)}`;
}
