/** Sequence sets (RFC 3501 §9 sequence-set): "1", "2:4", "*", "5:*", "4:2" and comma lists. */
export type SequenceSet = Array<[number, number]>;

const STAR = Number.MAX_SAFE_INTEGER;

export function parseSequenceSet(text: string): SequenceSet | undefined {
  if (!/^[\d:*,]+$/.test(text)) return undefined;
  const ranges: SequenceSet = [];
  for (const item of text.split(',')) {
    const bounds = item.split(':');
    if (bounds.length > 2) return undefined;
    const values = bounds.map((b) => (b === '*' ? STAR : /^[1-9]\d*$/.test(b) ? Number(b) : NaN));
    if (values.some((v) => Number.isNaN(v))) return undefined;
    const [a, b = a] = values as [number, number?];
    ranges.push([Math.min(a, b as number), Math.max(a, b as number)]);
  }
  return ranges;
}

/** Whether n is in the set, where "*" stands for `largest` (the last sequence number or highest UID). */
export function inSequenceSet(set: SequenceSet, n: number, largest: number): boolean {
  return set.some(([a, b]) => {
    const low = Math.min(a === STAR ? largest : a, b === STAR ? largest : b);
    const high = Math.max(a === STAR ? largest : a, b === STAR ? largest : b);
    return n >= low && n <= high;
  });
}
