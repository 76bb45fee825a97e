import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { LocalAccountKey, LocalAccountKeyStore } from '../../services/local-account.service.js';

/**
 * The local account's API key in the data dir (`local-account.json`, mode 0600): the key the start
 * banner prints stays the same across restarts. The database only keeps its hash.
 */
export function localAccountFile(dataDir: string): LocalAccountKeyStore {
  const path = join(dataDir, 'local-account.json');
  return {
    async read(): Promise<LocalAccountKey | undefined> {
      try {
        const parsed = JSON.parse(await readFile(path, 'utf8')) as Partial<LocalAccountKey>;
        return typeof parsed.tenantId === 'string' && typeof parsed.apiKey === 'string' ? { tenantId: parsed.tenantId, apiKey: parsed.apiKey } : undefined;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT' || error instanceof SyntaxError) return undefined;
        throw error;
      }
    },
    async write(key: LocalAccountKey): Promise<void> {
      await mkdir(dataDir, { recursive: true });
      await writeFile(path, `${JSON.stringify(key, null, 2)}\n`, { mode: 0o600 });
    },
  };
}
