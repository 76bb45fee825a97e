import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openFileLimit } from './open-file-limit.js';

describe('openFileLimit', () => {
  it('reads the soft limit from a /proc/<pid>/limits file; unknown without one or when unlimited', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'limits-'));
    const file = join(dir, 'limits');
    const header = 'Limit                     Soft Limit           Hard Limit           Units     \n';
    await writeFile(file, `${header}Max open files            1024                 524288               files     \n`);
    expect(openFileLimit(file)).toBe(1024);
    await writeFile(file, `${header}Max open files            unlimited            unlimited            files     \n`);
    expect(openFileLimit(file)).toBeUndefined();
    expect(openFileLimit(join(dir, 'missing'))).toBeUndefined();
  });
});
