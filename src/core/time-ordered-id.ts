import { randomBytes } from 'node:crypto';

/** How far back the clock may step (an NTP correction) before ids stop borrowing the last millisecond. */
const CLOCK_STEP_TOLERANCE_MS = 1000;
const COUNTER_MAX = 0xfff;
/** A new millisecond's counter starts in the lower half of its 12 bits, so it has room to count up. */
const COUNTER_SEED_RANGE = 0x800;
const VARIANT_DIGITS = '89ab';

let lastMs = -1;
let lastCounter = 0;

/** Random hex digits from the CSPRNG, 4 KB of bytes at a time (512 ids): a CSPRNG call per id cost more than the rest of the id. */
const POOL_BYTES = 4096;
let randomHex = randomBytes(POOL_BYTES).toString('hex');
let randomHexOffset = 0;
const HEX_BYTES = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));

/** The offset in `randomHex` of `count` hex digits no id has used. */
function takeRandomHex(count: number): number {
  if (randomHexOffset + count > randomHex.length) {
    randomHex = randomBytes(POOL_BYTES).toString('hex');
    randomHexOffset = 0;
  }
  const offset = randomHexOffset;
  randomHexOffset += count;
  return offset;
}

/** The id's first 15 digits change only with the millisecond: formatted once per millisecond. */
let clockMs = -1;
let clockPrefix = '';

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
    // 12 random bits, of which the lower 11 seed the counter.
    const seedAt = takeRandomHex(3);
    counter = Number.parseInt(randomHex.slice(seedAt, seedAt + 3), 16) % COUNTER_SEED_RANGE;
  }
  lastMs = ms;
  lastCounter = counter;
  if (ms !== clockMs) {
    const clock = ms.toString(16).padStart(12, '0');
    clockMs = ms;
    clockPrefix = `${clock.slice(0, 8)}-${clock.slice(8)}-7`;
  }
  // 16 random digits, of which the first gives its top two bits to the RFC 9562 variant (binary 10): 62 bits stay random.
  const at = takeRandomHex(16);
  const variant = VARIANT_DIGITS[Number.parseInt(randomHex.charAt(at), 16) & 0x3] as string;
  const counterHex = `${(counter >> 8).toString(16)}${HEX_BYTES[counter & 0xff] as string}`;
  return `${clockPrefix}${counterHex}-${variant}${randomHex.slice(at + 1, at + 4)}-${randomHex.slice(at + 4, at + 16)}`;
}
