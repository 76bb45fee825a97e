/**
 * One left-to-right pass over HTML: text runs and tags, with comments and raw-text elements skipped.
 * Every search is an `indexOf` from the current position; a miss ends the walk (an unterminated
 * comment, tag or script hides the rest, as in a browser), so no input is scanned twice and the
 * cost is linear in its length: `<!--` × 100,000 is one failed search, not 100,000.
 */
export interface HtmlTag {
  /** Lower-case element name. */
  name: string;
  closing: boolean;
  /** The source between the name and `>`. */
  attributes: string;
}

export interface HtmlVisitor {
  text(html: string, start: number, end: number): void;
  tag(tag: HtmlTag): void;
  /** A comment or a raw-text element (script, style…) was skipped: a word boundary. */
  gap(): void;
}

/** Elements whose content is never visible text. */
const RAW_TEXT = new Set(['script', 'style', 'title', 'noscript', 'template', 'textarea', 'xmp']);

const isLetter = (code: number) => (code >= 65 && code <= 90) || (code >= 97 && code <= 122);
const isNameChar = (code: number) => isLetter(code) || (code >= 48 && code <= 57) || code === 45 || code === 58;

/** Where the closing tag of raw-text element `name` starts, at or after `from`; -1 when there is none. */
function rawTextEnd(html: string, name: string, from: number): number {
  for (let at = html.indexOf('</', from); at !== -1; at = html.indexOf('</', at + 2)) {
    if (html.slice(at + 2, at + 2 + name.length).toLowerCase() === name && !isNameChar(html.charCodeAt(at + 2 + name.length))) return at;
  }
  return -1;
}

/** Reads one tag at `lt` (a `<` followed by a name); returns where the walk continues, or -1 to stop. */
function readTag(html: string, lt: number, visitor: HtmlVisitor): number {
  const closing = html.charCodeAt(lt + 1) === 47;
  const nameStart = closing ? lt + 2 : lt + 1;
  const end = html.indexOf('>', nameStart);
  if (end === -1) return -1;
  let nameEnd = nameStart;
  while (nameEnd < end && isNameChar(html.charCodeAt(nameEnd))) nameEnd++;
  const name = html.slice(nameStart, nameEnd).toLowerCase();
  visitor.tag({ name, closing, attributes: html.slice(nameEnd, end) });
  if (closing || !RAW_TEXT.has(name)) return end + 1;
  const close = rawTextEnd(html, name, end + 1);
  const closeEnd = close === -1 ? -1 : html.indexOf('>', close);
  if (closeEnd === -1) return -1;
  visitor.gap();
  visitor.tag({ name, closing: true, attributes: '' });
  return closeEnd + 1;
}

export function walkHtml(html: string, visitor: HtmlVisitor): void {
  let at = 0;
  while (at < html.length) {
    const lt = html.indexOf('<', at);
    if (lt === -1) return visitor.text(html, at, html.length);
    if (lt > at) visitor.text(html, at, lt);
    const next = html.charCodeAt(lt + 1);
    if (html.startsWith('!--', lt + 1)) {
      const close = html.indexOf('-->', lt + 4);
      if (close === -1) return;
      visitor.gap();
      at = close + 3;
    } else if (next === 33 || next === 63) {
      // <!DOCTYPE …>, <![CDATA[…]]>, <?xml …?>: bogus comments up to the next '>'.
      const close = html.indexOf('>', lt + 2);
      if (close === -1) return;
      at = close + 1;
    } else if (isLetter(next) || (next === 47 && isLetter(html.charCodeAt(lt + 2)))) {
      at = readTag(html, lt, visitor);
      if (at === -1) return;
    } else {
      visitor.text(html, lt, lt + 1);
      at = lt + 1;
    }
  }
}
