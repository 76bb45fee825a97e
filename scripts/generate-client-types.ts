/**
 * Writes src/client/api-types.generated.ts from the OpenAPI document the app serves (built in
 * process on a throwaway SQLite data dir; nothing listens). `--check` fails instead when the file is stale.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createApp } from '../src/app.js';
import { loadConfig } from '../src/config/config.js';
import { openApiToTs, type OpenApiDocument } from './openapi-to-ts.js';

export const GENERATED_TYPES_PATH = fileURLToPath(new URL('../src/client/api-types.generated.ts', import.meta.url));

export async function buildOpenApiDocument(): Promise<OpenApiDocument> {
  const dataDir = await mkdtemp(join(tmpdir(), 'mailroom-openapi-'));
  const app = await createApp(loadConfig({ MAILROOM_DATA_DIR: dataDir, MAILROOM_LOG_LEVEL: 'silent', MAILROOM_INGEST_WORKERS: '0' }));
  try {
    await app.http.ready();
    return app.http.swagger() as unknown as OpenApiDocument;
  } finally {
    await app.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

export async function generateClientTypes(): Promise<string> {
  return openApiToTs(await buildOpenApiDocument());
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const generated = await generateClientTypes();
  if (process.argv.includes('--check')) {
    const current = await readFile(GENERATED_TYPES_PATH, 'utf8').catch(() => '');
    if (current !== generated) {
      console.error(`${GENERATED_TYPES_PATH} is stale: run npm run client:generate`);
      process.exit(1);
    }
  } else {
    await writeFile(GENERATED_TYPES_PATH, generated);
    console.log(`wrote ${GENERATED_TYPES_PATH}`);
  }
  process.exit(0);
}
