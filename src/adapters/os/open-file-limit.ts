import { readFileSync } from 'node:fs';

/**
 * The soft limit on open descriptors of this process (`ulimit -n`), from /proc/self/limits; undefined
 * where that file does not exist (not Linux) or says "unlimited". Node has no getrlimit of its own.
 */
export function openFileLimit(limitsFile = '/proc/self/limits'): number | undefined {
  let text: string;
  try {
    text = readFileSync(limitsFile, 'utf8');
  } catch {
    return undefined;
  }
  const soft = /^Max open files\s+(\d+)/m.exec(text)?.[1];
  return soft === undefined ? undefined : Number(soft);
}
