import { canSeeEnvironment, type Caller } from '../core/api-key.js';
import { makePage, type Page, type PageRequest } from '../core/pagination.js';
import type { Repositories } from '../adapters/db/repositories/index.js';
import type { ActivityLogEntry, ActivityLogFilter } from '../adapters/db/repositories/activity-log.repository.js';

export class ActivityLogService {
  constructor(private readonly repos: Repositories) {}

  async list(caller: Caller, filter: ActivityLogFilter, request: PageRequest): Promise<Page<ActivityLogEntry>> {
    if (!canSeeEnvironment(caller, filter.environmentId)) return makePage([], 0, request);
    const scoped = caller.environmentId === null ? filter : { ...filter, environmentId: caller.environmentId };
    return this.repos.logs.list(caller.tenantId, scoped, request);
  }
}
