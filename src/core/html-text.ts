import { walkHtml, type HtmlTag } from './html-scan.js';

/** A Map, not an object literal: `&constructor;` or `&__proto__;` must not reach Object.prototype. */
const NAMED_ENTITIES = new Map(
  Object.entries({
    amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', copy: '©', reg: '®', trade: '™', hellip: '…',
    mdash: '—', ndash: '–', lsquo: '‘', rsquo: '’', ldquo: '“', rdquo: '”', euro: '€', zwnj: '', zwj: '', shy: '',
  }),
);

const isDigit = (code: number) => code >= 48 && code <= 57;
const isHexDigit = (code: number) => isDigit(code) || (code >= 97 && code <= 102) || (code >= 65 && code <= 70);
const isAsciiLetter = (code: number) => (code >= 97 && code <= 122) || (code >= 65 && code <= 90);

/** Past the `;` that ends 1 to `max` characters passing `accept` from `from`; -1 when they are not so ended. */
function afterRunAndSemicolon(text: string, from: number, max: number, accept: (code: number) => boolean): number {
  let at = from;
  while (at - from <= max && accept(text.charCodeAt(at))) at++;
  const length = at - from;
  return length >= 1 && length <= max && text.charCodeAt(at) === 59 ? at + 1 : -1;
}

/** The end of the character reference `&(#x[0-9a-f]{1,8}|#\d{1,8}|[a-z]{1,32});` (case-insensitive) at `amp`; -1 when there is none. */
function entityEnd(text: string, amp: number): number {
  if (text.charCodeAt(amp + 1) !== 35) return afterRunAndSemicolon(text, amp + 1, 32, isAsciiLetter);
  const x = text.charCodeAt(amp + 2);
  return x === 120 || x === 88 ? afterRunAndSemicolon(text, amp + 3, 8, isHexDigit) : afterRunAndSemicolon(text, amp + 2, 8, isDigit);
}

function decodeEntity(whole: string, entity: string): string {
  if (entity[0] === '#') {
    const code = entity[1] === 'x' || entity[1] === 'X' ? parseInt(entity.slice(2), 16) : parseInt(entity.slice(1), 10);
    return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
  }
  return NAMED_ENTITIES.get(entity.toLowerCase()) ?? whole;
}

/** Character references decoded, each read in place at its `&` (a sticky regex there cost a match object each, `replace` with a callback more, issue 16). */
export function decodeEntities(text: string): string {
  let decoded = '';
  let copied = 0;
  for (let amp = text.indexOf('&'); amp !== -1; amp = text.indexOf('&', amp + 1)) {
    const end = entityEnd(text, amp);
    if (end === -1) continue;
    decoded += text.slice(copied, amp) + decodeEntity(text.slice(amp, end), text.slice(amp + 1, end - 1));
    copied = end;
  }
  return copied === 0 ? text : decoded + text.slice(copied);
}

/** An anchor of the HTML body: offsets into HtmlReading.text, so the sentence around it can be read. */
export interface HtmlAnchor {
  href: string;
  text: string;
  /** The alt text of an image inside the anchor (image buttons). */
  alt: string;
  start: number;
  end: number;
}

export interface HtmlReading {
  /** Visible text, entities decoded, blocks broken into lines; whitespace not yet collapsed. */
  text: string;
  anchors: HtmlAnchor[];
  /** Text of elements that set something apart to be copied: code, pre, kbd, large or monospace fonts, bold. */
  emphasised: string[];
}

export interface ReadOptions {
  /** Line breaks in the source are line breaks of the text (a parsed text body); otherwise only markup breaks lines. */
  sourceBreaks: boolean;
}

const BLOCKS = new Set(['p', 'div', 'tr', 'li', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'table', 'section', 'article', 'blockquote', 'pre']);
const LIST_BLOCKS = new Set(['ul', 'ol']);
const VOID = new Set(['br', 'img', 'hr', 'meta', 'link', 'input', 'wbr', 'col', 'area', 'base', 'source', 'track', 'embed', 'param']);
const EMPHASIS_TAGS = new Set(['code', 'pre', 'kbd', 'samp', 'tt', 'strong', 'b', 'h1', 'h2', 'h3', 'big']);
const EMPHASIS_STYLE = /monospace|courier|consolas|menlo|letter-spacing\s*:\s*[1-9]|font-weight\s*:\s*(?:bold|[6-9]00)/i;
const FONT_SIZE = /font-size\s*:\s*(\d{1,3})(?:\.\d+)?\s*(px|pt|em|rem)?/i;
const HREF = /\bhref\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))/i;
const ALT = /\balt\s*=\s*(?:"([^"]*)"|'([^']*)')/i;
/**
 * Runs of whitespace that collapsing changes: a lone space or line break is left alone, since matching
 * it (to write it back) made every word of the text a match and the text a new string (issue 16).
 */
const WHITESPACE_TO_COLLAPSE = /\s{2,}|[^\S ]/g;

/** Every run of whitespace as one space. */
export const collapseWhitespace = (text: string) => text.replace(WHITESPACE_TO_COLLAPSE, ' ');
/** Runs of [ \t\f\v\u00a0] but a lone space. */
const SPACES_TO_COLLAPSE = /[\t\f\v\u00a0][ \t\f\v\u00a0]*| [ \t\f\v\u00a0]+/g;
/** Spaces before a line break and blank lines after it: ` *\n[\n ]*` but a lone `\n`. */
const LINE_BREAKS_TO_COLLAPSE = / +\n[\n ]*|\n[\n ]+/g;
/** Deeper nesting than this is not followed for emphasis (bounds the work on hostile markup). */
const MAX_DEPTH = 256;
const CLOSE_SEARCH = 16;
/** Longer set-apart text is a paragraph in bold, not a code. */
const MAX_EMPHASIS = 80;

function isEmphasis(tag: HtmlTag): boolean {
  if (EMPHASIS_TAGS.has(tag.name)) return true;
  if (!tag.attributes.includes('style')) return false;
  if (EMPHASIS_STYLE.test(tag.attributes)) return true;
  const size = FONT_SIZE.exec(tag.attributes);
  if (size === null) return false;
  const value = Number(size[1]);
  const unit = (size[2] ?? 'px').toLowerCase();
  return unit === 'em' || unit === 'rem' ? value >= 2 : value >= 20;
}

const firstGroup = (match: RegExpExecArray | null) => match?.[1] ?? match?.[2] ?? match?.[3] ?? '';

/** Reads visible text, anchors and set-apart text of an HTML body in one linear pass. */
export function readHtml(html: string, options: ReadOptions): HtmlReading {
  const parts: string[] = [];
  let length = 0;
  const push = (text: string) => {
    parts.push(text);
    length += text.length;
  };
  // Offsets only during the walk: slicing the growing text there would make the pass quadratic.
  const anchors: HtmlAnchor[] = [];
  let anchor: HtmlAnchor | undefined;
  const closeAnchor = () => {
    if (anchor === undefined) return;
    anchor.end = length;
    anchors.push(anchor);
    anchor = undefined;
  };
  const emphasised: Array<{ start: number; end: number }> = [];
  const open: Array<{ name: string; emphasis: boolean; start: number }> = [];
  /** Open <pre> elements among `open`. */
  let preformatted = 0;

  const openTag = (tag: HtmlTag) => {
    if (tag.name === 'br') return push('\n');
    if (tag.name === 'td' || tag.name === 'th') push(' ');
    else if (!options.sourceBreaks && (BLOCKS.has(tag.name) || LIST_BLOCKS.has(tag.name))) push('\n');
    if (tag.name === 'a') {
      closeAnchor();
      anchor = { href: decodeEntities(firstGroup(HREF.exec(tag.attributes)).trim()), text: '', alt: '', start: length, end: length };
    } else if (tag.name === 'img' && anchor !== undefined && anchor.alt === '') {
      anchor.alt = decodeEntities(firstGroup(ALT.exec(tag.attributes)));
    }
    if (VOID.has(tag.name) || open.length >= MAX_DEPTH) return;
    open.push({ name: tag.name, emphasis: isEmphasis(tag), start: length });
    if (tag.name === 'pre') preformatted++;
  };

  const closeTag = (tag: HtmlTag) => {
    if (BLOCKS.has(tag.name)) push('\n');
    if (tag.name === 'a') closeAnchor();
    for (let depth = open.length - 1; depth >= Math.max(0, open.length - CLOSE_SEARCH); depth--) {
      if (open[depth]?.name !== tag.name) continue;
      for (let closed = depth; closed < open.length; closed++) {
        const element = open[closed]!;
        if (element.emphasis) emphasised.push({ start: element.start, end: length });
        if (element.name === 'pre') preformatted--;
      }
      open.length = depth;
      return;
    }
  };

  walkHtml(html, {
    text: (source, start, end) => {
      const run = decodeEntities(source.slice(start, end));
      // Inside <pre> the source's line breaks are the text's (a text body sent as HTML keeps its lines).
      push(options.sourceBreaks || preformatted > 0 ? run : collapseWhitespace(run));
    },
    tag: (tag) => (tag.closing ? closeTag(tag) : openTag(tag)),
    gap: () => push(' '),
  });
  closeAnchor();
  const text = parts.join('');
  // Filled in place, not copied with `{ ...a, text }`: such a copy gets a hidden class of its own on Node 20 (D66).
  for (const a of anchors) a.text = text.slice(a.start, a.end);
  return {
    text,
    anchors,
    emphasised: emphasised.filter((r) => r.end - r.start <= MAX_EMPHASIS).map((r) => text.slice(r.start, r.end).trim()).filter(Boolean),
  };
}

/** Spaces collapsed, blank lines dropped. */
export function tidyText(text: string): string {
  return text.replace(SPACES_TO_COLLAPSE, ' ').replace(LINE_BREAKS_TO_COLLAPSE, '\n').trim();
}

/**
 * The visible text of an HTML body: no head, style, script or comments; block elements become line
 * breaks. Good enough for snippets and code extraction, not a renderer. Linear in the input.
 */
export function htmlToText(html: string): string {
  return tidyText(readHtml(html, { sourceBreaks: true }).text);
}
