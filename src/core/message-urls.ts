import { parseAttributes } from './html-attributes.js';
import { walkHtml } from './html-scan.js';
import { decodeEntities } from './html-text.js';

export type MessageUrlKind = 'link' | 'image';

export interface MessageUrl {
  url: string;
  kind: MessageUrlKind;
}

const BARE_URL = /https?:\/\/[^\s<>"'`{}|\\^[\]]+/gi;
const TRAILING_PUNCTUATION = /[.,;:!?'")\]}>»]+$/;
const WEB_URL = /^https?:\/\/[^\s/]/i;

/** Where a tag names a URL a reader follows or a client loads. */
const URL_ATTRIBUTES: Record<string, Array<{ attribute: string; kind: MessageUrlKind }>> = {
  a: [{ attribute: 'href', kind: 'link' }],
  area: [{ attribute: 'href', kind: 'link' }],
  img: [{ attribute: 'src', kind: 'image' }, { attribute: 'srcset', kind: 'image' }],
  source: [{ attribute: 'srcset', kind: 'image' }],
  table: [{ attribute: 'background', kind: 'image' }],
  td: [{ attribute: 'background', kind: 'image' }],
  body: [{ attribute: 'background', kind: 'image' }],
};

const srcsetUrls = (value: string) => value.split(',').map((candidate) => candidate.trim().split(/\s+/, 1)[0] ?? '');

/** Web URLs of the HTML's links and images, in order of appearance. */
function htmlUrls(html: string): MessageUrl[] {
  const found: MessageUrl[] = [];
  walkHtml(html, {
    text: () => undefined,
    gap: () => undefined,
    tag: (tag) => {
      const wanted = URL_ATTRIBUTES[tag.name];
      if (tag.closing || wanted === undefined) return;
      const attributes = parseAttributes(tag.attributes);
      for (const { attribute, kind } of wanted) {
        const value = attributes.find((a) => a.name === attribute)?.value;
        if (value === undefined) continue;
        const decoded = decodeEntities(value).trim();
        for (const url of attribute === 'srcset' ? srcsetUrls(decoded) : [decoded]) found.push({ url, kind });
      }
    },
  });
  return found;
}

function textUrls(text: string): MessageUrl[] {
  return [...text.matchAll(BARE_URL)].map((match) => ({ url: match[0].replace(TRAILING_PUNCTUATION, ''), kind: 'link' as const }));
}

/**
 * Every distinct web (http/https) URL of a message's links and images: from the HTML body when
 * there is one, else from the text body. A URL both linked and shown as an image counts as an image.
 */
export function messageUrls(html: string | null, text: string | null): MessageUrl[] {
  const all = html !== null ? htmlUrls(html) : textUrls(text ?? '');
  const byUrl = new Map<string, MessageUrl>();
  for (const entry of all) {
    if (!WEB_URL.test(entry.url)) continue;
    const known = byUrl.get(entry.url);
    if (known === undefined || entry.kind === 'image') byUrl.set(entry.url, known === undefined ? entry : { ...known, kind: 'image' });
  }
  return [...byUrl.values()];
}
