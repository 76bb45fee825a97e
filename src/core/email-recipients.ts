import { normaliseAddress } from './address.js';

/** An email's recipient lists as its headers name them. */
export interface HeaderRecipients {
  to: string[];
  cc: string[];
  bcc: string[];
}

/**
 * The recipients one tenant's copy of a message stores: To falls back to the envelope's addresses when
 * the headers name none, and envelope recipients that no To or Cc header names were blind copies (as
 * Mailpit shows them). The ingest service and the analysis worker (the search vector, D57) both use it.
 */
export function storedRecipients(headers: HeaderRecipients, deliveryAddresses: string[]): HeaderRecipients {
  const visible = new Set([...headers.to, ...headers.cc].map(normaliseAddress));
  const bcc = new Set(headers.bcc.map(normaliseAddress));
  for (const address of deliveryAddresses) if (!visible.has(address)) bcc.add(address);
  return { to: headers.to.length > 0 ? headers.to : deliveryAddresses, cc: headers.cc, bcc: [...bcc] };
}

/** The `recipients_search` column: every recipient, lower-cased, in one text. */
export const recipientsSearchText = (recipients: HeaderRecipients) => [...recipients.to, ...recipients.cc, ...recipients.bcc].join(', ').toLowerCase();
