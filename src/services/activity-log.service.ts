import type { Caller } from '../core/api-key.js';
import type { Page, PageRequest } from '../core/pagination.js';
import type { Repositories } from '../adapters/db/repositories/index.js';
import type { ActivityLogEntry, ActivityLogFilter } from '../adapters/db/repositories/activity-log.repository.js';

export class ActivityLogService {
  constructor(private readonly repos: Repositories) {}

  list(caller: Caller, filter: ActivityLogFilter, request: PageRequest): Promise<Page<ActivityLogEntry>> {
    const scoped = caller.environmentId === null ? filter : { ...filter, environmentId: caller.environmentId };
    return this.repos.logs.list(caller.tenantId, scoped, request);
  }
}
