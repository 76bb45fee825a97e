import { headerField, headerValue, type HeaderField } from '../../core/mime-structure.js';
import { parseAddressList, type ImapAddress } from './address-list.js';
import { headerString, list } from './imap-format.js';

function addressList(fields: HeaderField[], name: string): ImapAddress[] | undefined {
  const value = headerValue(fields, name);
  if (value === undefined) return undefined;
  return parseAddressList(value);
}

function formatAddresses(addresses: ImapAddress[] | undefined): string {
  if (addresses === undefined || addresses.length === 0) return 'NIL';
  return `(${addresses.map((a) => list([headerString(a.name), headerString(a.route), headerString(a.mailbox), headerString(a.host)])).join('')})`;
}

/** ENVELOPE (RFC 3501 §7.4.2) from an entity's header fields; Sender and Reply-To default to From. */
function unstructured(fields: HeaderField[], name: string): string {
  const field = headerField(fields, name);
  return headerString(field?.value, field?.folded);
}

export function envelope(fields: HeaderField[]): string {
  const from = addressList(fields, 'from');
  const sender = addressList(fields, 'sender');
  const replyTo = addressList(fields, 'reply-to');
  return list([
    unstructured(fields, 'date'),
    unstructured(fields, 'subject'),
    formatAddresses(from),
    formatAddresses(sender !== undefined && sender.length > 0 ? sender : from),
    formatAddresses(replyTo !== undefined && replyTo.length > 0 ? replyTo : from),
    formatAddresses(addressList(fields, 'to')),
    formatAddresses(addressList(fields, 'cc')),
    formatAddresses(addressList(fields, 'bcc')),
    unstructured(fields, 'in-reply-to'),
    unstructured(fields, 'message-id'),
  ]);
}
