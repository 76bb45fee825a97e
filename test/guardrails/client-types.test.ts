import { readFile } from 'node:fs/promises';
import { expect, it } from 'vitest';
import { GENERATED_TYPES_PATH, generateClientTypes } from '../../scripts/generate-client-types.js';

it('the client SDK types match the OpenAPI document (run npm run client:generate after changing a route schema)', async () => {
  const current = await readFile(GENERATED_TYPES_PATH, 'utf8');
  expect(current === (await generateClientTypes()), `${GENERATED_TYPES_PATH} is stale: run npm run client:generate`).toBe(true);
});
