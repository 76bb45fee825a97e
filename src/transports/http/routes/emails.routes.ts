import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { EMAIL_SORT_FIELDS, SORT_ORDERS, type EmailSortField, type SortOrder } from '../../../core/vocab.js';
import type { EmailService } from '../../../services/email.service.js';
import { ErrorBody, IsoDate, PageOf, PageQuery, errorResponses } from '../schemas/common.js';
import { EmailContentSchema, EmailSchema, ReadStateSchema, toEmailView } from '../schemas/email.js';
import { attachmentDisposition } from './content-disposition.js';

const SortField = Type.Union(EMAIL_SORT_FIELDS.map((f) => Type.Literal(f)));
const SortOrderSchema = Type.Union(SORT_ORDERS.map((o) => Type.Literal(o)));
const Text = Type.String({ maxLength: 500 });

/** Spec 4.2 names plus the spellings existing SDK clients send (`sort[field]`, `filter.from`, …). */
const ListQuery = Type.Object({
  ...PageQuery(20, 100),
  from: Type.Optional(Text),
  to: Type.Optional(Text),
  subject: Type.Optional(Text),
  'filter.from': Type.Optional(Text),
  'filter.to': Type.Optional(Text),
  'filter.subject': Type.Optional(Text),
  'filter.read': Type.Optional(Type.Boolean()),
  'filter.environmentId': Type.Optional(Type.String({ maxLength: 100 })),
  'filter.createdAfter': Type.Optional(Type.Union([IsoDate, Type.String({ format: 'date' })])),
  'filter.createdBefore': Type.Optional(Type.Union([IsoDate, Type.String({ format: 'date' })])),
  'sort.field': Type.Optional(SortField),
  'sort.order': Type.Optional(SortOrderSchema),
  'sort[field]': Type.Optional(SortField),
  'sort[order]': Type.Optional(SortOrderSchema),
});
type ListQuery = Static<typeof ListQuery>;

const EmailIdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });
const AttachmentParams = Type.Object({ emailId: Type.String({ minLength: 1, maxLength: 100 }), attachmentId: Type.String({ minLength: 1, maxLength: 100 }) });

/** A date-only bound covers the whole day: createdBefore=2026-11-21 includes mail of the 21st. */
function bound(value: string | undefined, endOfDay: boolean): string | undefined {
  if (value === undefined) return undefined;
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) return `${value}T${endOfDay ? '23:59:59.999' : '00:00:00.000'}Z`;
  return new Date(value).toISOString();
}

function filterOf(query: ListQuery) {
  return {
    from: query.from ?? query['filter.from'],
    to: query.to ?? query['filter.to'],
    subject: query.subject ?? query['filter.subject'],
    read: query['filter.read'],
    environmentId: query['filter.environmentId'],
    createdAfter: bound(query['filter.createdAfter'], false),
    createdBefore: bound(query['filter.createdBefore'], true),
  };
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
    schema: { tags, summary: 'List emails', querystring: ListQuery, response: { 200: PageOf(Type.Ref(EmailSchema), 'EmailPage'), ...errorResponses } },
    handler: async (request) => {
      const query = request.query as ListQuery;
      const page = await emails.list(request.caller, filterOf(query), sortOf(query), { page: query.page ?? 1, perPage: query.perPage ?? 20 });
      return { ...page, data: page.data.map(toEmailView) };
    },
  });

  app.get('/emails/:id', {
    config: inbox,
    schema: {
      tags,
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
    schema: { tags, summary: 'HTML and text bodies and headers', params: EmailIdParams, response: { 200: EmailContentSchema, ...errorResponses } },
    handler: async (request) => {
      const { id } = request.params as { id: string };
      return { id, ...(await emails.contentOrThrow(request.caller, id)) };
    },
  });

  for (const [path, read] of [['read', true], ['unread', false]] as const) {
    app.patch(`/emails/:id/${path}`, {
      config: inbox,
      schema: { tags, summary: `Mark an email ${path}`, params: EmailIdParams, response: { 200: ReadStateSchema, ...errorResponses } },
      handler: async (request) => emails.setRead(request.caller, (request.params as { id: string }).id, read),
    });
  }

  app.delete('/emails/:id', {
    schema: { tags, summary: 'Delete an email, its raw EML and attachments', params: EmailIdParams, response: { 204: Type.Null(), ...errorResponses } },
    handler: async (request, reply) => {
      await emails.delete(request.caller, (request.params as { id: string }).id);
      return reply.status(204).send();
    },
  });

  app.get('/emails/:id/eml', {
    config: inbox,
    schema: {
      tags,
      summary: 'Download the raw message',
      params: EmailIdParams,
      produces: ['message/rfc822'],
      response: { 200: Type.String({ description: 'The raw RFC 5322 message', contentMediaType: 'message/rfc822' }), 404: Type.Ref(ErrorBody) },
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
      summary: 'Download an attachment',
      params: AttachmentParams,
      response: { 200: Type.String({ description: 'The attachment bytes', contentMediaType: 'application/octet-stream' }), 404: Type.Ref(ErrorBody) },
    },
    handler: async (request, reply) => {
      const { emailId, attachmentId } = request.params as { emailId: string; attachmentId: string };
      const { meta, stream } = await emails.attachmentOrThrow(request.caller, emailId, attachmentId);
      return reply
        .header('content-type', meta.contentType)
        .header('content-length', meta.size)
        .header('content-disposition', attachmentDisposition(meta.filename))
        .header('x-content-type-options', 'nosniff')
        .send(stream);
    },
  });
}
