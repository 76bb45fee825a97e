import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { InvalidInputError } from '../../../core/errors.js';
import { BULK_MAX_IDS, type BulkSelection, type EmailBulkService } from '../../../services/email-bulk.service.js';
import { errorResponses } from '../schemas/common.js';
import { FilterBody, SearchText, toEmailFilter } from '../schemas/email-filter.js';
import { InboxIdParams } from '../schemas/inbox.js';

const selectionFields = {
  ids: Type.Optional(
    Type.Array(Type.String({ minLength: 1, maxLength: 100 }), {
      minItems: 1,
      maxItems: BULK_MAX_IDS,
      description: `These emails (at most ${BULK_MAX_IDS}); ids the key cannot see are skipped and not reported`,
    }),
  ),
  filter: Type.Optional(FilterBody),
  q: Type.Optional(SearchText),
};
const BulkBody = Type.Object(selectionFields, {
  additionalProperties: false,
  description: 'Either ids, or filter and/or q (every email GET /emails would list with them; filter {} is all)',
});
const BulkReadBody = Type.Object(
  { ...selectionFields, read: Type.Optional(Type.Boolean({ description: 'The state to set (default true: read)' })) },
  { additionalProperties: false, description: BulkBody.description },
);
const Deleted = Type.Object({ deleted: Type.Integer({ description: 'Emails deleted' }) }, { title: 'BulkDeleted' });
const Updated = Type.Object({ updated: Type.Integer({ description: 'Emails whose read state changed' }) }, { title: 'BulkUpdated' });

/** ids, or a filter: both at once is ambiguous, neither would be "everything" by accident. */
function selectionOf(body: Static<typeof BulkBody>): BulkSelection {
  const byFilter = body.filter !== undefined || body.q !== undefined;
  if (body.ids !== undefined && byFilter) throw new InvalidInputError('INVALID_BULK_SELECTION', 'Give either ids or filter/q, not both', { field: 'ids' });
  if (body.ids !== undefined) return { ids: body.ids };
  if (!byFilter) throw new InvalidInputError('INVALID_BULK_SELECTION', 'Give ids, or filter and/or q (filter {} selects every email)', { field: 'ids' });
  return { filter: toEmailFilter({ ...body.filter, q: body.q }), q: body.q };
}

export function registerEmailBulkRoutes(app: FastifyInstance, bulk: EmailBulkService): void {
  const tags = ['Emails'];

  app.post('/emails/delete', {
    schema: { tags, operationId: 'deleteEmails', summary: 'Delete many emails: by ids or by the list filter and q', body: BulkBody, response: { 200: Deleted, ...errorResponses } },
    handler: async (request) => bulk.delete(request.caller, selectionOf(request.body as Static<typeof BulkBody>)),
  });

  app.post('/emails/read', {
    config: { access: 'inbox' as const },
    schema: { tags, operationId: 'markEmailsRead', summary: 'Mark many emails read (or unread with read: false)', body: BulkReadBody, response: { 200: Updated, ...errorResponses } },
    handler: async (request) => {
      const body = request.body as Static<typeof BulkReadBody>;
      return bulk.setRead(request.caller, selectionOf(body), body.read ?? true);
    },
  });

  app.delete('/inboxes/:inboxId/messages', {
    schema: { tags: ['Inbox messages'], operationId: 'emptyInbox', summary: 'Delete every email of an inbox', params: InboxIdParams, response: { 200: Deleted, ...errorResponses } },
    handler: async (request) => bulk.emptyInbox(request.caller, (request.params as Static<typeof InboxIdParams>).inboxId),
  });
}
