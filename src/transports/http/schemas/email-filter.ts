import { Type } from '@sinclair/typebox';
import { parseSearchQuery, SEARCH_QUERY_MAX_LENGTH } from '../../../core/search-query.js';
import type { EmailFilter } from '../../../adapters/db/repositories/email.repository.js';
import { IsoDate } from './common.js';

/** The email list's filter, shared by GET /emails (query) and the bulk actions (body). */
export const FilterText = (description: string) => Type.String({ maxLength: 500, description });
export const DateBound = (description: string) => Type.Union([IsoDate, Type.String({ format: 'date' })], { description });

export const SearchText = Type.String({
  maxLength: SEARCH_QUERY_MAX_LENGTH,
  description: 'Search across subject, sender, recipients and body: words, "phrases", from:, to:, subject:, is:read, is:unread, has:attachment, before:YYYY-MM-DD, after:YYYY-MM-DD, -term (docs/search.md)',
});

/** The list's filters as a JSON object (bulk actions); the same meaning as GET /emails's query parameters. */
export const FilterBody = Type.Object(
  {
    from: Type.Optional(FilterText('As GET /emails from')),
    to: Type.Optional(FilterText('As GET /emails to')),
    subject: Type.Optional(FilterText('As GET /emails subject')),
    read: Type.Optional(Type.Boolean({ description: 'As GET /emails filter.read' })),
    environmentId: Type.Optional(Type.String({ maxLength: 100, description: 'As GET /emails filter.environmentId' })),
    createdAfter: Type.Optional(DateBound('As GET /emails filter.createdAfter')),
    createdBefore: Type.Optional(DateBound('As GET /emails filter.createdBefore')),
  },
  { additionalProperties: false, description: 'The list filter; {} selects every email the key can see' },
);

export interface FilterInput {
  from?: string;
  to?: string;
  subject?: string;
  read?: boolean;
  environmentId?: string;
  createdAfter?: string;
  createdBefore?: string;
  q?: string;
}

/** A date-only bound covers the whole day: createdBefore=2026-11-21 includes mail of the 21st. */
function bound(value: string | undefined, endOfDay: boolean): string | undefined {
  if (value === undefined) return undefined;
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) return `${value}T${endOfDay ? '23:59:59.999' : '00:00:00.000'}Z`;
  return new Date(value).toISOString();
}

export function toEmailFilter(input: FilterInput): EmailFilter {
  return {
    from: input.from,
    to: input.to,
    subject: input.subject,
    read: input.read,
    environmentId: input.environmentId,
    createdAfter: bound(input.createdAfter, false),
    createdBefore: bound(input.createdBefore, true),
    search: input.q === undefined ? undefined : parseSearchQuery(input.q),
  };
}
