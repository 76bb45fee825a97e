import type { LeaseRepository } from '../adapters/db/repositories/lease.repository.js';
import type { Logger } from '../logger.js';
import type { SpamCheckService } from '../services/spam-check.service.js';
import { createPeriodicTask, type BackgroundTask } from './periodic-task.js';

/**
 * Asks the spam filter again about mail it could not check before the 250 (docs/spam.md). The work
 * is durable in the emails table (spam_recheck_at), so a restart loses none; a database lease keeps
 * it to one node at a time.
 */
export function createSpamRecheckTask(options: { spam: SpamCheckService; intervalMs: number; leases: LeaseRepository; logger: Logger }): BackgroundTask {
  return createPeriodicTask({
    name: 'spam-recheck',
    intervalMs: options.intervalMs,
    leases: options.leases,
    logger: options.logger,
    run: () => options.spam.recheckDue(),
  });
}
