import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { LOG_STATUSES, LOG_TYPES } from '../../../core/vocab.js';
import type { ActivityLogEntry } from '../../../adapters/db/repositories/activity-log.repository.js';
import type { ActivityLogService } from '../../../services/activity-log.service.js';
import { IsoDate, Nullable, PageOf, PageQuery, errorResponses } from '../schemas/common.js';

export const LogEntrySchema = Type.Object(
  {
    id: Type.String(),
    type: Type.Union(LOG_TYPES.map((t) => Type.Literal(t))),
    status: Type.Union(LOG_STATUSES.map((s) => Type.Literal(s))),
    message: Type.String(),
    metadata: Type.Record(Type.String(), Type.Unknown(), {
      description:
        'By type (spec 2.10): SMTP_RECEIVED baseEmailId, from, to, subject, remoteAddress, size; SPAM_CHECK spfResult, dkimResult, dmarcResult, authSummary, and with a spam filter configured spamCheck, spamScore, spamThreshold, isSpam, spamAction, spamRules (status FAILED: SPF, DKIM or DMARC failed or the mail is spam; PENDING: the verdict is still to come); ' +
        'WEBHOOK webhookId, statusCode, durationMs, attemptsMade; CHATAPP integrationId, attemptsMade; CHATAPP_BOT channelConfigId, channelId, guildId',
    }),
    emailId: Nullable(Type.String({ description: 'The email UUID; kept after the email is deleted' })),
    environmentId: Nullable(Type.String()),
    createdAt: IsoDate,
  },
  { $id: 'ActivityLogEntry', title: 'ActivityLogEntry' },
);

const ListQuery = Type.Object({
  ...PageQuery(50, 100),
  type: Type.Optional(Type.Union(LOG_TYPES.map((t) => Type.Literal(t)))),
  status: Type.Optional(Type.Union(LOG_STATUSES.map((s) => Type.Literal(s)))),
  emailId: Type.Optional(Type.String({ maxLength: 100 })),
  environmentId: Type.Optional(Type.String({ maxLength: 100 })),
});

export const toLogView = ({ tenantId: _tenantId, targetId: _targetId, ...entry }: ActivityLogEntry) => entry;

export function registerLogRoutes(app: FastifyInstance, logs: ActivityLogService): void {
  const tags = ['Activity log'];
  const LogPage = PageOf(Type.Ref(LogEntrySchema), 'ActivityLogPage');

  app.get('/logs', {
    schema: { tags, operationId: 'listLogs', summary: 'List activity-log entries, newest first', querystring: ListQuery, response: { 200: LogPage, ...errorResponses } },
    handler: async (request) => {
      const { page = 1, perPage = 50, ...filter } = request.query as Static<typeof ListQuery>;
      const result = await logs.list(request.caller, filter, { page, perPage });
      return { ...result, data: result.data.map(toLogView) };
    },
  });

  app.get('/logs/email/:emailId', {
    schema: {
      tags,
      operationId: 'listEmailLogs',
      summary: 'Every processing stage of one email',
      params: Type.Object({ emailId: Type.String({ minLength: 1, maxLength: 100 }) }),
      querystring: Type.Object(PageQuery(50, 100)),
      response: { 200: LogPage, ...errorResponses },
    },
    handler: async (request) => {
      const { emailId } = request.params as { emailId: string };
      const { page = 1, perPage = 50 } = request.query as { page?: number; perPage?: number };
      const result = await logs.list(request.caller, { emailId }, { page, perPage });
      return { ...result, data: result.data.map(toLogView) };
    },
  });
}
