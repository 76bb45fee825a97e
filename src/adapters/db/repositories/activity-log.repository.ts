import type { Kysely, Selectable } from 'kysely';
import { makePage, offsetOf, type Page, type PageRequest } from '../../../core/pagination.js';
import type { LogStatus, LogType } from '../../../core/vocab.js';
import { reusableInsert } from '../reusable-query.js';
import type { Database } from '../schema.js';
import { parseJson } from '../sql.js';

export interface ActivityLogEntry {
  id: string;
  tenantId: string;
  environmentId: string | null;
  emailId: string | null;
  type: LogType;
  status: LogStatus;
  message: string;
  metadata: Record<string, unknown>;
  createdAt: string;
  /** The webhook or chat-app integration a delivery entry is about. */
  targetId?: string | null;
}

export interface ActivityLogFilter {
  type?: LogType;
  status?: LogStatus;
  emailId?: string;
  environmentId?: string;
  targetId?: string;
}

type Row = Selectable<Database['activity_logs']>;

const toEntry = (row: Row): ActivityLogEntry => ({
  id: row.id,
  tenantId: row.tenant_id,
  environmentId: row.environment_id,
  emailId: row.email_id,
  type: row.type as LogType,
  status: row.status as LogStatus,
  message: row.message,
  metadata: parseJson<Record<string, unknown>>(row.metadata_json),
  createdAt: row.created_at,
  targetId: row.target_id ?? null,
});

/** Ten values a row: a group commit's logs go in statements of 1,000 rows, below every parameter limit. */
const LOG_ROWS_PER_INSERT = 1000;
const insertLogs = reusableInsert('activity_logs');

export class ActivityLogRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async append(entries: ActivityLogEntry[]): Promise<void> {
    for (let start = 0; start < entries.length; start += LOG_ROWS_PER_INSERT) {
      await insertLogs(
        this.db,
        entries.slice(start, start + LOG_ROWS_PER_INSERT).map((e) => ({
          id: e.id,
          tenant_id: e.tenantId,
          environment_id: e.environmentId,
          email_id: e.emailId,
          type: e.type,
          status: e.status,
          message: e.message,
          metadata_json: JSON.stringify(e.metadata),
          created_at: e.createdAt,
          target_id: e.targetId ?? null,
        })),
      );
    }
  }

  async get(tenantId: string, id: string): Promise<ActivityLogEntry | undefined> {
    const row = await this.db.selectFrom('activity_logs').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
    return row && toEntry(row);
  }

  /** Newest first; `seq` breaks ties between entries written in the same millisecond. */
  async list(tenantId: string, filter: ActivityLogFilter, request: PageRequest): Promise<Page<ActivityLogEntry>> {
    let base = this.db.selectFrom('activity_logs').where('tenant_id', '=', tenantId);
    if (filter.type !== undefined) base = base.where('type', '=', filter.type);
    if (filter.status !== undefined) base = base.where('status', '=', filter.status);
    if (filter.emailId !== undefined) base = base.where('email_id', '=', filter.emailId);
    if (filter.environmentId !== undefined) base = base.where('environment_id', '=', filter.environmentId);
    if (filter.targetId !== undefined) base = base.where('target_id', '=', filter.targetId);
    const [rows, count] = await Promise.all([
      base.selectAll().orderBy('seq', 'desc').limit(request.perPage).offset(offsetOf(request)).execute(),
      base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    ]);
    return makePage(rows.map(toEntry), Number(count.n), request);
  }

  /** Entries of one type created in [since, until), counted per status. */
  async countByStatus(tenantId: string, type: LogType, since: string, until: string): Promise<Partial<Record<LogStatus, number>>> {
    const rows = await this.db
      .selectFrom('activity_logs')
      .select((eb) => ['status', eb.fn.countAll<number>().as('n')])
      .where('tenant_id', '=', tenantId)
      .where('type', '=', type)
      .where('created_at', '>=', since)
      .where('created_at', '<', until)
      .groupBy('status')
      .execute();
    return Object.fromEntries(rows.map((row) => [row.status, Number(row.n)]));
  }

  async updateStatus(id: string, status: LogStatus, message: string, metadata: Record<string, unknown>): Promise<void> {
    await this.db
      .updateTable('activity_logs')
      .set({ status, message, metadata_json: JSON.stringify(metadata) })
      .where('id', '=', id)
      .execute();
  }
}
