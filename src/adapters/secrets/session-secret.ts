import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AppConfig } from '../../config/config.js';

/**
 * The key that signs dashboard session tokens: MAILROOM_JWT_SECRET, or 32 random bytes written once
 * into the data dir (mode 0600) so that sessions survive restarts. Several nodes must share one value.
 */
export async function loadSessionSecret(config: AppConfig): Promise<Buffer> {
  if (config.accounts.jwtSecret !== undefined) return Buffer.from(config.accounts.jwtSecret, 'utf8');
  const path = join(config.dataDir, 'jwt-secret');
  await mkdir(config.dataDir, { recursive: true, mode: 0o700 });
  try {
    await writeFile(path, randomBytes(32).toString('base64url'), { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  return Buffer.from((await readFile(path, 'utf8')).trim(), 'utf8');
}
