/** encodeURIComponent leaves ' ( ) * as they are, but RFC 5987 attr-char does not allow them. */
const encodeRfc5987 = (value: string): string =>
  encodeURIComponent(value).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** Printable ASCII without the quote and backslash, which a quoted-string would need escaped. */
const SAFE_QUOTED = /^[\x20-\x21\x23-\x5b\x5d-\x7e]*$/;
const DEFAULT_FILENAME = 'attachment';
/**
 * Control characters never belong in a name, and a lone surrogate cannot be UTF-8 encoded
 * (encodeURIComponent throws). Iterating by code point leaves only lone surrogates in that range.
 */
const encodable = (char: string): boolean => {
  const code = char.codePointAt(0) ?? 0;
  return code >= 0x20 && code !== 0x7f && (code < 0xd800 || code > 0xdfff);
};

/**
 * RFC 6266 `attachment` header. A name of safe ASCII is sent as plain `filename="…"`, the only form
 * simple parsers (splitting on `filename=`) read right; any other name gets an ASCII fallback plus
 * the UTF-8 name in `filename*` (RFC 5987). The name comes from mail, so control characters are
 * dropped: a header value must never make the response fail.
 */
export function attachmentDisposition(filename: string): string {
  const name = [...filename].filter(encodable).join('').trim() || DEFAULT_FILENAME;
  if (SAFE_QUOTED.test(name)) return `attachment; filename="${name}"`;
  const ascii = name.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeRfc5987(name)}`;
}

const MEDIA_TYPE = /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/i;
const FALLBACK_CONTENT_TYPE = 'application/octet-stream';

/**
 * An attachment's declared Content-Type as a response header: the sender wrote it, so anything that
 * is not a plain `type/subtype` (parameters with control or non-Latin-1 characters, garbage) is
 * served as application/octet-stream rather than failing the download.
 */
export function safeContentType(declared: string): string {
  const [essence = '', ...parameters] = declared.split(';');
  const type = essence.trim();
  if (!MEDIA_TYPE.test(type)) return FALLBACK_CONTENT_TYPE;
  const kept = parameters.map((p) => p.trim()).filter((p) => /^[a-z0-9!#$&^_.+-]+=("[\x20-\x21\x23-\x7e]*"|[\x21-\x7e]+)$/i.test(p));
  return [type.toLowerCase(), ...kept].join('; ');
}
