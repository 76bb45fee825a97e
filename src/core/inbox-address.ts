import { randomBytes } from 'node:crypto';

/** Role addresses RFC 2142 reserves; nobody may create an inbox that would receive their mail. */
const RESERVED = new Set(['postmaster', 'abuse', 'hostmaster', 'webmaster', 'noc', 'security', 'mailer-daemon', 'root', 'admin', 'administrator']);

/** RFC 5321 dot-atom local part, lower-case (we do not offer quoted local parts). */
const DOT_ATOM = /^[a-z0-9!#$%&'*+/=?^_`{|}~-]+(\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;

export type PrefixProblem = 'empty' | 'too_long' | 'invalid_characters' | 'reserved';

export function prefixProblem(prefix: string): PrefixProblem | undefined {
  if (prefix.length === 0) return 'empty';
  if (Buffer.byteLength(prefix) > 64) return 'too_long';
  if (!DOT_ATOM.test(prefix)) return 'invalid_characters';
  if (RESERVED.has(prefix)) return 'reserved';
  return undefined;
}

/** Consonant-vowel syllables read aloud easily; 4 syllables + 4 digits is ~2^32 combinations. */
const CONSONANTS = 'bcdfghjklmnprstvz';
const VOWELS = 'aeiou';

function pick(alphabet: string, byte: number): string {
  return alphabet[byte % alphabet.length] as string;
}

/** Short, readable, unguessable: e.g. "dabo-kitu-4821". */
export function generatePrefix(): string {
  const bytes = randomBytes(12);
  const syllable = (i: number) => pick(CONSONANTS, bytes[i] as number) + pick(VOWELS, bytes[i + 1] as number);
  const digits = (bytes.readUInt32BE(8) % 10000).toString().padStart(4, '0');
  return `${syllable(0)}${syllable(2)}-${syllable(4)}${syllable(6)}-${digits}`;
}

/** Appended when a prefix is taken: "-" and four base-36 characters. */
export function collisionSuffix(): string {
  return `-${randomBytes(4).readUInt32BE(0).toString(36).padStart(4, '0').slice(-4)}`;
}
