/**
 * Prepares an email's HTML for a sandboxed iframe that never runs scripts (no `allow-scripts`, so
 * `allow-same-origin` only lets the dashboard measure the content's height). Remote images stay
 * blocked until the reader asks: their src is moved aside and a CSP meta tag forbids any remote load
 * (CSS url() too). `cid:` images are replaced by the stored inline parts as data: URLs (fetched with
 * the session, which an <img> could not send). Links open in a new tab without an opener; links to
 * anything but http(s) and mailto lose their href, so `javascript:` and `data:` are never opened.
 */
export interface PreparedHtml {
  html: string;
  remoteImages: number;
}

export interface PrepareOptions {
  allowRemote: boolean;
  /** data: URLs of the inline parts, by Content-ID without angle brackets. */
  inlineImages: ReadonlyMap<string, string>;
}

const REMOTE = /^(https?:)?\/\//i;
const OPENABLE = /^(https?:|mailto:)/i;
const BLOCKING_POLICY = "default-src 'none'; img-src data: cid:; style-src 'unsafe-inline'; font-src data:";
const ALLOWING_POLICY = "default-src 'none'; img-src data: cid: https: http:; style-src 'unsafe-inline'; font-src data: https:";

/**
 * Elements that load or navigate to another document (a read receipt to the sender's host, a
 * redirect): removed with their content. The sandbox and the CSP stop most of them already; frames
 * and refreshes are not worth trusting to that.
 */
const NAVIGATING = 'script, iframe, frame, frameset, noframes, object, embed, applet, portal, base, meta, link';
/** Attributes that submit, ping or refresh elsewhere; forms are unwrapped (their text stays). */
const NAVIGATING_ATTRIBUTES = ['action', 'formaction', 'ping', 'http-equiv'];

function removeNavigation(doc: Document): void {
  for (const element of doc.querySelectorAll(NAVIGATING)) element.remove();
  for (const form of doc.querySelectorAll('form')) form.replaceWith(...form.childNodes);
  for (const name of NAVIGATING_ATTRIBUTES) for (const element of doc.querySelectorAll(`[${name}]`)) element.removeAttribute(name);
  if (doc.body === null) doc.documentElement.append(doc.createElement('body'));
}

/** The Content-IDs an HTML body refers to with `cid:` (the parts worth fetching). */
export function referencedContentIds(html: string): Set<string> {
  const ids = new Set<string>();
  for (const match of html.matchAll(/cid:([^"'\s)>]+)/gi)) ids.add(decodeURIComponent(match[1] as string).toLowerCase());
  return ids;
}

export const bareContentId = (contentId: string): string => contentId.replace(/^<|>$/g, '').toLowerCase();

function rewriteImages(doc: Document, options: PrepareOptions): number {
  let remoteImages = 0;
  for (const image of doc.querySelectorAll('img[src], img[srcset], source[srcset]')) {
    const src = (image.getAttribute('src') ?? image.getAttribute('srcset') ?? '').trim();
    if (/^cid:/i.test(src)) {
      const inline = options.inlineImages.get(decodeURIComponent(src.slice(4)).toLowerCase());
      if (inline !== undefined) image.setAttribute('src', inline);
      continue;
    }
    if (!REMOTE.test(src)) continue;
    remoteImages += 1;
    if (!options.allowRemote) {
      image.removeAttribute('srcset');
      image.setAttribute('data-blocked-src', src);
      image.setAttribute('src', 'data:,');
    }
  }
  return remoteImages;
}

function rewriteLinks(doc: Document): void {
  for (const link of doc.querySelectorAll('a[href], area[href]')) {
    const href = (link.getAttribute('href') ?? '').trim();
    if (!OPENABLE.test(href)) {
      link.setAttribute('data-blocked-href', href);
      link.removeAttribute('href');
      link.setAttribute('title', `Not opened: ${href.slice(0, 80)}`);
      continue;
    }
    link.setAttribute('target', '_blank');
    link.setAttribute('rel', 'noopener noreferrer');
  }
}

export function prepareHtml(source: string, options: PrepareOptions): PreparedHtml {
  const doc = new DOMParser().parseFromString(source, 'text/html');
  removeNavigation(doc);
  const remoteImages = rewriteImages(doc, options);
  rewriteLinks(doc);
  const meta = doc.createElement('meta');
  meta.setAttribute('http-equiv', 'Content-Security-Policy');
  meta.setAttribute('content', options.allowRemote ? ALLOWING_POLICY : BLOCKING_POLICY);
  doc.head.prepend(meta);
  const base = doc.createElement('base');
  base.setAttribute('target', '_blank');
  doc.head.append(base);
  return { html: `<!doctype html>${doc.documentElement.outerHTML}`, remoteImages };
}

const URL_IN_TEXT = /\bhttps?:\/\/[^\s<>"')\]]+[^\s<>"')\].,;:!?]/gi;

/** Plain text split into text and http(s) URLs, for a text view whose links can be clicked. */
export function linkifyText(text: string): Array<{ text: string; url?: string }> {
  const parts: Array<{ text: string; url?: string }> = [];
  let last = 0;
  for (const match of text.matchAll(URL_IN_TEXT)) {
    const index = match.index ?? 0;
    if (index > last) parts.push({ text: text.slice(last, index) });
    parts.push({ text: match[0], url: match[0] });
    last = index + match[0].length;
  }
  if (last < text.length) parts.push({ text: text.slice(last) });
  return parts;
}
