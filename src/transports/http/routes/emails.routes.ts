import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { EMAIL_SORT_FIELDS, SORT_ORDERS, type EmailSortField, type SortOrder } from '../../../core/vocab.js';
import type { EmailService } from '../../../services/email.service.js';
import { InvalidInputError } from '../../../core/errors.js';
import { Nullable, PageOf, errorResponses } from '../schemas/common.js';
import { DateBound, FilterText as Text, SearchText, toEmailFilter } from '../schemas/email-filter.js';
import { EmailContentSchema, EmailSchema, ReadStateSchema, toEmailView } from '../schemas/email.js';
import { attachmentDisposition, safeContentType } from './content-disposition.js';

const SortField = Type.Union(EMAIL_SORT_FIELDS.map((f) => Type.Literal(f)), { description: 'Sort key (default createdAt); from and subject sort case-insensitively' });
const SortOrderSchema = Type.Union(SORT_ORDERS.map((o) => Type.Literal(o)), { description: 'Sort direction (default desc)' });
const alias = (of: string) => `Same as ${of} (the spelling existing SDK clients send); ${of} wins when both are given`;

/** Spec 4.2 names plus the spellings existing SDK clients send (`sort[field]`, `filter.from`, …). */
const PerPage = (description: string) => Type.Integer({ minimum: 1, maximum: 100, description });
const ListQuery = Type.Object({
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, description: 'Page number, from 1 (default 1); not with cursor' })),
  perPage: Type.Optional(PerPage('Items per page (default 20, max 100)')),
  limit: Type.Optional(PerPage('Same as perPage (the cursor-style spelling); give one of the two')),
  cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 2000, description: 'The nextCursor of a previous answer (same filters and sort): the page after it, stable while new mail arrives' })),
  inboxId: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Only emails delivered to this inbox (an inbox-scoped key may name only its own)' })),
  q: Type.Optional(SearchText),
  from: Type.Optional(Text('Sender address contains this, case-insensitively; % and _ are literal')),
  to: Type.Optional(Text('A to, cc or bcc address contains this, case-insensitively')),
  subject: Type.Optional(Text('Subject contains this, case-insensitively')),
  'filter.from': Type.Optional(Text(alias('from'))),
  'filter.to': Type.Optional(Text(alias('to'))),
  'filter.subject': Type.Optional(Text(alias('subject'))),
  'filter.read': Type.Optional(Type.Boolean({ description: 'Only read (true) or unread (false) emails' })),
  'filter.environmentId': Type.Optional(Type.String({ maxLength: 100, description: 'Only emails of this environment' })),
  'filter.createdAfter': Type.Optional(DateBound('Received at or after this date-time; a date means from 00:00:00Z that day')),
  'filter.createdBefore': Type.Optional(DateBound('Received at or before this date-time; a date means until 23:59:59.999Z that day')),
  'filter[createdAfter]': Type.Optional(DateBound(alias('filter.createdAfter'))),
  'filter[createdBefore]': Type.Optional(DateBound(alias('filter.createdBefore'))),
  'sort.field': Type.Optional(SortField),
  'sort.order': Type.Optional(SortOrderSchema),
  'sort[field]': Type.Optional(Type.Union(SortField.anyOf, { description: alias('sort.field') })),
  'sort[order]': Type.Optional(Type.Union(SortOrderSchema.anyOf, { description: alias('sort.order') })),
});
type ListQuery = Static<typeof ListQuery>;

const EmailPage = Type.Composite(
  [
    PageOf(Type.Ref(EmailSchema), 'EmailPage'),
    Type.Object({
      nextCursor: Nullable(Type.String({ description: 'Pass as cursor for the next page; null on the last page' })),
      totalItemsIsLowerBound: Type.Boolean({
        description: 'true when a `q` search matched more emails than it counted (it counts up to 1,000, or to the end of the requested page): totalItems, total and totalPages are then "at least"; hasNextPage and nextCursor stay exact (docs/search.md)',
      }),
    }),
  ],
  { title: 'EmailPage' },
);

/** A download: documented under its own media type, while error responses stay JSON. */
const fileResponse = (description: string, mediaType: string) => ({
  description,
  content: { [mediaType]: { schema: Type.String({ format: 'binary' }) } },
});

const EmailIdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });
const AttachmentParams = Type.Object({ emailId: Type.String({ minLength: 1, maxLength: 100 }), attachmentId: Type.String({ minLength: 1, maxLength: 100 }) });

function filterOf(query: ListQuery) {
  return {
    inboxId: query.inboxId,
    ...toEmailFilter({
    from: query.from ?? query['filter.from'],
    to: query.to ?? query['filter.to'],
    subject: query.subject ?? query['filter.subject'],
    read: query['filter.read'],
    environmentId: query['filter.environmentId'],
    createdAfter: query['filter.createdAfter'] ?? query['filter[createdAfter]'],
    createdBefore: query['filter.createdBefore'] ?? query['filter[createdBefore]'],
    q: query.q,
    }),
  };
}

/** page and cursor, or perPage and limit, together would leave one of them silently ignored. */
function pageOf(query: ListQuery) {
  if (query.cursor !== undefined && query.page !== undefined) throw new InvalidInputError('INVALID_PAGINATION', 'Give page or cursor, not both', { field: 'page' });
  if (query.limit !== undefined && query.perPage !== undefined) throw new InvalidInputError('INVALID_PAGINATION', 'Give perPage or limit, not both', { field: 'limit' });
  return { page: query.page ?? 1, perPage: query.limit ?? query.perPage ?? 20 };
}

function sortOf(query: ListQuery): { field: EmailSortField; order: SortOrder } {
  return {
    field: query['sort.field'] ?? query['sort[field]'] ?? 'createdAt',
    order: query['sort.order'] ?? query['sort[order]'] ?? 'desc',
  };
}

export function registerEmailRoutes(app: FastifyInstance, emails: EmailService): void {
  const tags = ['Emails'];
  const inbox = { access: 'inbox' as const };

  app.get('/emails', {
    config: inbox,
    schema: { tags, operationId: 'listEmails', summary: 'List emails', querystring: ListQuery, response: { 200: EmailPage, ...errorResponses } },
    handler: async (request) => {
      const query = request.query as ListQuery;
      const page = await emails.list(request.caller, filterOf(query), sortOf(query), pageOf(query), query.cursor);
      return { ...page, data: page.data.map(toEmailView) };
    },
  });

  app.get('/emails/:id', {
    config: inbox,
    schema: {
      tags,
      operationId: 'getEmail',
      summary: 'Get one email',
      params: EmailIdParams,
      querystring: Type.Object({ markAsRead: Type.Optional(Type.Boolean({ description: 'Also mark the email read' })) }),
      response: { 200: Type.Ref(EmailSchema), ...errorResponses },
    },
    handler: async (request) => {
      const { id } = request.params as { id: string };
      if ((request.query as { markAsRead?: boolean }).markAsRead === true) await emails.setRead(request.caller, id, true);
      return toEmailView(await emails.getOrThrow(request.caller, id));
    },
  });

  app.get('/emails/:id/content', {
    config: inbox,
    schema: { tags, operationId: 'getEmailContent', summary: 'HTML and text bodies and headers', params: EmailIdParams, response: { 200: EmailContentSchema, ...errorResponses } },
    handler: async (request) => {
      const { id } = request.params as { id: string };
      return { id, ...(await emails.contentOrThrow(request.caller, id)) };
    },
  });

  for (const [path, read] of [['read', true], ['unread', false]] as const) {
    app.patch(`/emails/:id/${path}`, {
      config: inbox,
      schema: { tags, operationId: read ? 'markEmailRead' : 'markEmailUnread', summary: `Mark an email ${path}`, params: EmailIdParams, response: { 200: ReadStateSchema, ...errorResponses } },
      handler: async (request) => emails.setRead(request.caller, (request.params as { id: string }).id, read),
    });
  }

  app.delete('/emails/:id', {
    schema: { tags, operationId: 'deleteEmail', summary: 'Delete an email, its raw EML and attachments', params: EmailIdParams, response: { 204: Type.Null(), ...errorResponses } },
    handler: async (request, reply) => {
      await emails.delete(request.caller, (request.params as { id: string }).id);
      return reply.status(204).send();
    },
  });

  app.get('/emails/:id/eml', {
    config: inbox,
    schema: {
      tags,
      operationId: 'downloadEmailEml',
      summary: 'Download the raw message',
      params: EmailIdParams,
      response: { 200: fileResponse('The raw RFC 5322 message', 'message/rfc822'), ...errorResponses },
    },
    handler: async (request, reply) => {
      const { id } = request.params as { id: string };
      const { stream, size } = await emails.emlOrThrow(request.caller, id);
      return reply
        .header('content-type', 'message/rfc822')
        .header('content-length', size)
        .header('content-disposition', attachmentDisposition(`${id}.eml`))
        .send(stream);
    },
  });

  app.get('/emails/:emailId/attachments/:attachmentId', {
    config: inbox,
    schema: {
      tags,
      operationId: 'downloadAttachment',
      summary: 'Download an attachment',
      params: AttachmentParams,
      response: { 200: fileResponse('The attachment bytes, with the Content-Type it was sent with', 'application/octet-stream'), ...errorResponses },
    },
    handler: async (request, reply) => {
      const { emailId, attachmentId } = request.params as { emailId: string; attachmentId: string };
      const { meta, stream } = await emails.attachmentOrThrow(request.caller, emailId, attachmentId);
      return reply
        .header('content-type', safeContentType(meta.contentType))
        .header('content-length', meta.size)
        .header('content-disposition', attachmentDisposition(meta.filename))
        .header('x-content-type-options', 'nosniff')
        .send(stream);
    },
  });
}
