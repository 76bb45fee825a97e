import type { Extracted, ExtractedLink } from '../core/extract.js';

/**
 * `extracted` as clients read it (REST, SSE): `links` is the list of link URLs in reading order, as
 * the hosted service's SDK types it, and the rich items ({url, text, kind}) are `linkDetails`.
 */
export type ExtractedView = Omit<Extracted, 'links'> & { links: string[]; linkDetails: ExtractedLink[] };

/** null stays null: extraction was skipped (`extractionSkipped` says why). */
export function toExtractedView(extracted: Extracted | null): ExtractedView | null {
  if (extracted === null) return null;
  const { links, ...rest } = extracted;
  return { ...rest, links: links.map((link) => link.url), linkDetails: links };
}
