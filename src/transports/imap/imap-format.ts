/** IMAP wire values (RFC 3501 §4): strings are quoted when they can be, literals otherwise. */

function quotable(value: string, allowEscapes: boolean): boolean {
  if (value.length >= 1024) return false;
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code === 0 || code === 10 || code === 13 || code > 127) return false;
    if (!allowEscapes && (code === 34 || code === 92)) return false;
  }
  return true;
}

const literal = (value: string): string => `{${Buffer.byteLength(value, 'latin1')}}\r\n${value}`;

/** A string value: quoted (with \\-escapes), or a literal when it holds CR, LF, 8-bit or is long. */
export function imapString(value: string): string {
  return quotable(value, true) ? `"${value.replace(/["\\]/g, '\\$&')}"` : literal(value);
}

/**
 * A string taken from a message header (ENVELOPE): Dovecot sends these as literals when they hold
 * " or \\ or were folded over several lines; we do the same so responses compare byte for byte.
 */
export function headerString(value: string | null | undefined, folded = false): string {
  if (value === null || value === undefined) return 'NIL';
  return !folded && quotable(value, false) ? `"${value}"` : literal(value);
}

/** nstring: NIL for a missing value. */
export function nstring(value: string | null | undefined): string {
  return value === null || value === undefined ? 'NIL' : imapString(value);
}

export function list(items: readonly string[]): string {
  return `(${items.join(' ')})`;
}

/** A parenthesised list, or NIL when empty (body parameters, address lists). */
export function nlist(items: readonly string[]): string {
  return items.length === 0 ? 'NIL' : list(items);
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** INTERNALDATE form: "21-Nov-2026 05:35:01 +0000". */
export function internalDate(iso: string): string {
  const d = new Date(iso);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `"${pad(d.getUTCDate())}-${MONTHS[d.getUTCMonth()]}-${d.getUTCFullYear()} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())} +0000"`;
}

/** Parses an IMAP date ("1-Feb-1994") to the UTC midnight that starts it; undefined when malformed. */
export function parseSearchDate(value: string): Date | undefined {
  const match = /^(\d{1,2})-([A-Za-z]{3})-(\d{4})$/.exec(value);
  if (match === null) return undefined;
  const month = MONTHS.findIndex((m) => m.toLowerCase() === (match[2] as string).toLowerCase());
  if (month < 0) return undefined;
  return new Date(Date.UTC(Number(match[3]), month, Number(match[1])));
}
