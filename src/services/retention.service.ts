import type { OperationsRepository } from '../adapters/db/repositories/operations.repository.js';
import { NotFoundError } from '../core/errors.js';
import { emailRetentionDays } from '../core/plans.js';
import type { EmailService } from './email.service.js';

const DAY_MS = 86_400_000;
/** Emails deleted per tenant per round, and log entries per statement: short transactions, steady progress. */
const EMAIL_BATCH = 200;
const LOG_BATCH = 5_000;

const cutoffFor = (days: number, now: number): string => new Date(now - days * DAY_MS).toISOString();

/** An operator's retention period for one tenant (CLI `tenant set-retention`); null restores the plan's. */
export async function setEmailRetention(operations: OperationsRepository, tenantId: string, days: number | null): Promise<void> {
  if (!(await operations.setRetentionOverride(tenantId, days))) throw new NotFoundError('TENANT_NOT_FOUND', `Tenant ${tenantId} not found`);
}

/**
 * Deletes emails older than their tenant's retention period (plan default or operator override)
 * through EmailService, so rows go first and blobs after, exactly as an API delete does; and
 * activity log entries older than MAILROOM_LOG_RETENTION_DAYS (0: kept forever).
 */
export class RetentionService {
  constructor(
    private readonly operations: OperationsRepository,
    private readonly emails: EmailService,
    private readonly logRetentionDays: number,
  ) {}

  /** One round: up to a batch per tenant and one batch of logs. Returns how much it deleted (the task repeats while > 0). */
  async sweep(now = Date.now()): Promise<number> {
    let deleted = 0;
    for (const tenant of await this.operations.tenantRetentions()) {
      const cutoff = cutoffFor(emailRetentionDays(tenant.plan, tenant.retentionDaysOverride), now);
      for (const email of await this.operations.expiredEmails(tenant.tenantId, cutoff, EMAIL_BATCH)) {
        if (await this.emails.remove(tenant.tenantId, email)) deleted += 1;
      }
    }
    if (this.logRetentionDays > 0) deleted += await this.operations.deleteLogsBefore(cutoffFor(this.logRetentionDays, now), LOG_BATCH);
    return deleted;
  }
}
