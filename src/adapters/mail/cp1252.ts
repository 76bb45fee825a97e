/** Unicode code points for the 0x80–0x9F bytes of windows-1252 (undefined bytes map to themselves). */
const CP1252_HIGH = [
  0x20ac, 0x81, 0x201a, 0x0192, 0x201e, 0x2026, 0x2020, 0x2021, 0x02c6, 0x2030, 0x0160, 0x2039, 0x0152, 0x8d, 0x017d, 0x8f,
  0x90, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022, 0x2013, 0x2014, 0x02dc, 0x2122, 0x0161, 0x203a, 0x0153, 0x9d, 0x017e, 0x0178,
];

/**
 * Only ASCII text is as long in UTF-8 bytes as in UTF-16 units, and Buffer.byteLength counts a 10 KB
 * body about five times faster than the C1 regex searches it (docs/decisions.md D52).
 */
const isAscii = (text: string) => Buffer.byteLength(text, 'utf8') === text.length;

/**
 * Node 20.18.3+ decodes windows-1252 (and latin1, which WHATWG maps to it) to C1 control characters
 * instead of €, “, ” and friends (nodejs/node#56542), and postal-mime decodes through TextDecoder.
 * C1 controls never occur in real text, so mapping them back is safe whatever the declared charset.
 */
export function repairCp1252(text: string): string {
  if (isAscii(text) || !/[\u0080-\u009f]/.test(text)) return text;
  return text.replace(/[\u0080-\u009f]/g, (c) => String.fromCodePoint(CP1252_HIGH[c.charCodeAt(0) - 0x80] ?? c.charCodeAt(0)));
}
