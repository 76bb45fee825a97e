/**
 * The key a disk store's segment record is read by: the key it was put under, then `#`, the segment
 * file (beside where that key's own file would be) and the record's offset in it. Keys built by
 * blob-keys.ts never hold a `#`, so the put key stays a prefix: listing by prefix and finding the
 * email of a key work on both kinds (docs/decisions.md D72).
 */
export interface SegmentKey {
  key: string;
  segment: string;
  offset: number;
}

/** A segment file's name: `<start, base 36>-<writer>-<n>.seg`. */
const SEGMENT_NAME = '[A-Za-z0-9-]+\\.seg';
const SEGMENT_FILE = new RegExp(`^${SEGMENT_NAME}$`);
const SEGMENT_KEY = new RegExp(`^([^#]+)#(${SEGMENT_NAME})@(\\d{1,15})$`);

export const isSegmentFile = (name: string) => SEGMENT_FILE.test(name);

export const segmentKey = ({ key, segment, offset }: SegmentKey) => `${key}#${segment}@${offset}`;

export function parseSegmentKey(stored: string): SegmentKey | undefined {
  const match = SEGMENT_KEY.exec(stored);
  if (match === null) return undefined;
  return { key: match[1] as string, segment: match[2] as string, offset: Number(match[3]) };
}
