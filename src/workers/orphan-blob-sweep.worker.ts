import type { LeaseRepository } from '../adapters/db/repositories/lease.repository.js';
import type { Logger } from '../logger.js';
import { sweepOrphanBlobs, type OrphanSweepDependencies } from '../services/orphan-blob-sweep.js';
import { createPeriodicTask, type BackgroundTask } from './periodic-task.js';

/** Runs the orphan-blob sweep on one node at a time (database lease); docs/storage.md. */
export function createOrphanBlobSweeper(options: OrphanSweepDependencies & { intervalMs: number; leases: LeaseRepository; logger: Logger }): BackgroundTask {
  return createPeriodicTask({
    name: 'orphan-blob-sweep',
    intervalMs: options.intervalMs,
    leases: options.leases,
    logger: options.logger,
    run: async () => {
      const deleted = await sweepOrphanBlobs(options);
      if (deleted > 0) options.logger.info({ deleted }, 'orphan blobs deleted');
    },
  });
}
