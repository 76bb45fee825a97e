/**
 * Prepares an email's HTML for a `sandbox=""` iframe (no scripts, no same-origin, no forms, no
 * navigation). Remote images stay blocked until the reader asks: their src is moved aside and a
 * CSP meta tag forbids any remote load (CSS url() too). Scripts are removed as well, though the
 * sandbox would never run them.
 */
export interface PreparedHtml {
  html: string;
  remoteImages: number;
}

const REMOTE = /^(https?:)?\/\//i;
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

export function prepareHtml(source: string, allowRemote: boolean): PreparedHtml {
  const doc = new DOMParser().parseFromString(source, 'text/html');
  removeNavigation(doc);
  let remoteImages = 0;
  for (const image of doc.querySelectorAll('img[src], img[srcset], source[srcset]')) {
    const src = image.getAttribute('src') ?? image.getAttribute('srcset') ?? '';
    if (!REMOTE.test(src.trim())) continue;
    remoteImages += 1;
    if (!allowRemote) {
      image.removeAttribute('srcset');
      image.setAttribute('data-blocked-src', src);
      image.setAttribute('src', 'data:,');
    }
  }
  const meta = doc.createElement('meta');
  meta.setAttribute('http-equiv', 'Content-Security-Policy');
  meta.setAttribute('content', allowRemote ? ALLOWING_POLICY : BLOCKING_POLICY);
  doc.head.prepend(meta);
  const base = doc.createElement('base');
  base.setAttribute('target', '_blank');
  doc.head.append(base);
  return { html: `<!doctype html>${doc.documentElement.outerHTML}`, remoteImages };
}
