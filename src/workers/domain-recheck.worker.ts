import type { LeaseRepository } from '../adapters/db/repositories/lease.repository.js';
import type { Logger } from '../logger.js';
import type { DomainService } from '../services/domain.service.js';
import { createPeriodicTask, type BackgroundTask } from './periodic-task.js';

/** The timer ticks at most a minute apart, so a domain is rechecked close to `intervalMs` after its last check. */
const MAX_TICK_MS = 60_000;

/**
 * Checks the DNS records of enabled custom domains again once their last check is `intervalMs` old
 * (pending domains become verified when their records appear; verified ones get broken records
 * flagged). Holds a database lease, so one node at a time does the lookups.
 */
export function createDomainRecheckTask(options: { domains: DomainService; intervalMs: number; leases: LeaseRepository; logger: Logger }): BackgroundTask {
  return createPeriodicTask({
    name: 'domain-recheck',
    intervalMs: Math.min(options.intervalMs, MAX_TICK_MS),
    leases: options.leases,
    logger: options.logger,
    run: () => options.domains.recheckDue(options.intervalMs),
  });
}
