import type { ExtractionLimits } from '../core/extract.js';
import { integer } from './config.js';
import type { RawEnv } from './env.js';

/** docs/inboxes.md (Limits of extraction): what extraction of codes and links may read and spend per message. */
export function extractionSettings(env: RawEnv): ExtractionLimits {
  return {
    maxChars: integer(env, 'MAILROOM_EXTRACTION_MAX_CHARS', 512 * 1024, 1024, 26_214_400),
    budgetMs: integer(env, 'MAILROOM_EXTRACTION_BUDGET_MS', 500, 1, 60_000),
  };
}
