import { headerValue, isMultipart, parseParameterised, type MimeEntity } from '../../core/mime-structure.js';
import { envelope } from './envelope.js';
import { imapString, list, nlist, nstring } from './imap-format.js';

/**
 * RFC 2231 continuations (name*0, name*1, … or name*0*, …) are joined into one parameter after the
 * others, named `name` (or `name*` when the first segment is extended), as Dovecot reports them.
 */
function mergeContinuations(pairs: Array<[string, string]>): Array<[string, string]> {
  const plain: Array<[string, string]> = [];
  const segments = new Map<string, Array<{ index: number; value: string; extended: boolean }>>();
  for (const [name, value] of pairs) {
    const match = /^(.+)\*(\d+)(\*?)$/.exec(name);
    if (match === null) {
      plain.push([name, value]);
      continue;
    }
    const key = (match[1] as string).toLowerCase();
    const list = segments.get(key) ?? [];
    list.push({ index: Number(match[2]), value, extended: match[3] === '*' });
    segments.set(key, list);
  }
  for (const [key, list] of segments) {
    list.sort((a, b) => a.index - b.index);
    plain.push([list[0]?.extended ? `${key}*` : key, list.map((s) => s.value).join('')]);
  }
  return plain;
}

/** Parameters as a list; text parts without a charset get Dovecot's ("charset" "us-ascii") appended. */
function params(pairs: Array<[string, string]>, defaultCharset = false): string {
  const merged = mergeContinuations(pairs);
  if (defaultCharset && !merged.some(([name]) => name.toLowerCase() === 'charset')) merged.push(['charset', 'us-ascii']);
  return nlist(merged.flatMap(([name, value]) => [imapString(name), imapString(value)]));
}

function disposition(entity: MimeEntity): string {
  const raw = headerValue(entity.fields, 'content-disposition');
  if (raw === undefined) return 'NIL';
  const parsed = parseParameterised(raw);
  if (parsed.value === '') return 'NIL';
  return list([imapString(parsed.value), params(parsed.params)]);
}

function language(entity: MimeEntity): string {
  const raw = headerValue(entity.fields, 'content-language');
  if (raw === undefined) return 'NIL';
  const tags = raw.split(/[\s,]+/).filter((t) => t !== '');
  if (tags.length === 0) return 'NIL';
  return tags.length === 1 ? imapString(tags[0] as string) : list(tags.map(imapString));
}

function extension(entity: MimeEntity): string[] {
  return [disposition(entity), language(entity), nstring(headerValue(entity.fields, 'content-location'))];
}

/** A multipart without parts is shown with one empty text part, as Dovecot does (IMAP needs at least one). */
const emptyPart = (extended: boolean): string => `("text" "plain" ("charset" "us-ascii") NIL NIL "7bit" 0 0${extended ? ' NIL NIL NIL NIL' : ''})`;

/** BODYSTRUCTURE (extended) or BODY (basic) of RFC 3501 §7.4.2. */
export function bodyStructure(entity: MimeEntity, extended: boolean): string {
  const type = entity.contentType;
  if (isMultipart(entity)) {
    const parts = entity.children.length > 0 ? entity.children.map((c) => bodyStructure(c, extended)).join('') : emptyPart(extended);
    const tail = extended ? [params(type.params), ...extension(entity)] : [];
    return `(${[parts, imapString(type.subtype), ...tail].join(' ')})`;
  }
  const isText = type.type.toLowerCase() === 'text';
  const fields = [
    imapString(type.type),
    imapString(type.subtype),
    params(type.params, isText),
    nstring(headerValue(entity.fields, 'content-id')),
    nstring(headerValue(entity.fields, 'content-description')),
    imapString(headerValue(entity.fields, 'content-transfer-encoding') ?? '7bit'),
    String(entity.bodyEnd - entity.bodyStart),
  ];
  if (entity.message !== undefined) {
    fields.push(envelope(entity.message.fields), bodyStructure(entity.message, extended), String(entity.bodyLines));
  } else if (isText) {
    fields.push(String(entity.bodyLines));
  }
  if (extended) fields.push(nstring(headerValue(entity.fields, 'content-md5')), ...extension(entity));
  return list(fields);
}
