import type { Extracted, ExtractedLink } from '../core/extract.js';

/**
 * `extracted` as clients read it (REST, SSE): `links` is the list of link URLs in reading order, as
 * the hosted service's SDK types it, and the rich items ({url, text, kind}) are `linkDetails`.
 */
export type ExtractedView = Omit<Extracted, 'links'> & { links: string[]; linkDetails: ExtractedLink[] };

/**
 * null stays null: extraction was skipped (`extractionSkipped` says why). Field by field, not
 * `{ ...rest, links }`: that literal gives each view a hidden class of its own on Node 20 (D66), and
 * every inbox.message event the bus keeps for replay holds one.
 */
export function toExtractedView(extracted: Extracted | null): ExtractedView | null {
  if (extracted === null) return null;
  const { otp, verificationCode, codes, magicLink, links } = extracted;
  return { otp, verificationCode, codes, magicLink, links: links.map((link) => link.url), linkDetails: links };
}
