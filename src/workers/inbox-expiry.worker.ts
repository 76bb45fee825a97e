import type { LeaseRepository } from '../adapters/db/repositories/lease.repository.js';
import type { Logger } from '../logger.js';
import type { InboxService } from '../services/inbox.service.js';
import { createPeriodicTask, type BackgroundTask } from './periodic-task.js';

/**
 * Deletes temporary inboxes whose TTL has run out, with their messages (spec 3). Holds a database
 * lease, so one node sweeps at a time; the state is in the database, so restarts lose nothing
 * (RCPT TO already refuses an expired address before the sweeper gets to it).
 */
export function createInboxExpirySweeper(options: { inboxes: InboxService; intervalMs: number; leases: LeaseRepository; logger: Logger }): BackgroundTask {
  return createPeriodicTask({
    name: 'inbox-expiry',
    intervalMs: options.intervalMs,
    leases: options.leases,
    logger: options.logger,
    run: () => options.inboxes.deleteExpired(),
  });
}
