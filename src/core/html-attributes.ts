const ATTRIBUTE = /([^\s"'>/=]+)(?:\s*=\s*("[^"]*"|'[^']*'|[^\s"'>]+))?/g;

/** The attributes of a start tag's source (`HtmlTag.attributes`): lower-case names, values unquoted but not entity-decoded. */
export function parseAttributes(source: string): Array<{ name: string; value: string | undefined }> {
  return [...source.matchAll(ATTRIBUTE)].map(([, name, raw]) => ({
    name: (name as string).toLowerCase(),
    value: raw === undefined ? undefined : /^["']/.test(raw) ? raw.slice(1, -1) : raw,
  }));
}
