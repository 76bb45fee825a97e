export interface LinkDetail {
  url: string;
  text: string;
  kind: string;
}

/**
 * The links of an `extracted` object, whichever shape it has: `linkDetails` ({url, text, kind}) when
 * present, else `links` as objects or as bare URL strings.
 */
export function linkDetailsOf(extracted: { links?: unknown; linkDetails?: unknown }): LinkDetail[] {
  const list = Array.isArray(extracted.linkDetails) ? extracted.linkDetails : Array.isArray(extracted.links) ? extracted.links : [];
  return list.map((link: unknown) => (typeof link === 'string' ? { url: link, text: '', kind: 'other' } : (link as LinkDetail)));
}
