import type { ResourceLimits } from 'node:worker_threads';

/**
 * V8 limits for a helper thread that holds almost nothing (the SQLite checkpointer, the disk writer):
 * a 1 MB stack and a 4 MB young generation instead of the main isolate's 4 MB and 32 MB, about 3 MB
 * of RSS less per thread (docs/decisions.md D41). The old generation cap is far above what either
 * uses (under 2 MB) and only stops a leak from growing without bound.
 */
export const SMALL_THREAD_LIMITS: ResourceLimits = { maxYoungGenerationSizeMb: 4, maxOldGenerationSizeMb: 32, stackSizeMb: 1 };
