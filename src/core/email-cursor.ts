import { InvalidInputError } from './errors.js';
import type { Email } from './email.js';
import { EMAIL_SORT_FIELDS, SORT_ORDERS, type EmailSortField, type SortOrder } from './vocab.js';

/** Where a cursor page starts: after the email with this sort value and id, in this order. */
export interface EmailKeyset {
  field: EmailSortField;
  order: SortOrder;
  value: string;
  id: string;
}

const invalidCursor = (why: string) => new InvalidInputError('INVALID_CURSOR', `cursor ${why}; pass the nextCursor of a previous answer unchanged`, { field: 'cursor' });

/** The sort value an email is ordered by; the keyset compares it as the list's ORDER BY does. */
function sortValue(email: Email, field: EmailSortField): string {
  if (field === 'createdAt') return email.createdAt;
  return field === 'from' ? email.from : email.subject;
}

/** An opaque cursor pointing just past `email` (base64url JSON, so it survives any query string). */
export function encodeEmailCursor(email: Email, sort: { field: EmailSortField; order: SortOrder }): string {
  const keyset = { f: sort.field, o: sort.order, v: sortValue(email, sort.field), i: email.id };
  return Buffer.from(JSON.stringify(keyset)).toString('base64url');
}

function parse(cursor: string): unknown {
  try {
    return JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalidCursor('is not a cursor this API issued');
  }
}

/** Reads a cursor back; it must have been issued for the same sort, or the page would skip or repeat emails. */
export function decodeEmailCursor(cursor: string, sort: { field: EmailSortField; order: SortOrder }): EmailKeyset {
  const raw = parse(cursor) as { f?: unknown; o?: unknown; v?: unknown; i?: unknown } | null;
  const field = EMAIL_SORT_FIELDS.find((f) => f === raw?.f);
  const order = SORT_ORDERS.find((o) => o === raw?.o);
  if (field === undefined || order === undefined || typeof raw?.v !== 'string' || typeof raw.i !== 'string') {
    throw invalidCursor('is not a cursor this API issued');
  }
  if (field !== sort.field || order !== sort.order) {
    throw invalidCursor(`was issued for sort.field=${field} and sort.order=${order}, not ${sort.field} ${sort.order}`);
  }
  return { field, order, value: raw.v, id: raw.i };
}
