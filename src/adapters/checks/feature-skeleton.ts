/**
 * A small HTML document that triggers the same caniemail features as a large one. caniemail judges
 * every element, attribute and declaration on its own (never by nesting or text), once per client,
 * and costs about a millisecond per element on a 40-client check: a 100 KB newsletter took seconds.
 * Newsletters repeat the same few tags and declarations, so each distinct one is kept once.
 *
 * Two inputs are "the same" when they differ only where caniemail does not look: digits and hex
 * colours in values (it reads units such as `px`, functions, keywords and property–value pairs), and
 * URLs beyond what it reads of them (`#` and `mailto:` links, image file extensions and data: types).
 */
import { parseAttributes } from '../../core/html-attributes.js';
import { walkHtml, type HtmlTag } from '../../core/html-scan.js';

const VOID = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'source', 'track', 'wbr']);
const IMAGE_URL_ATTRIBUTES = new Set(['src', 'srcset', 'background', 'poster']);

const quote = (value: string) => `"${value.replace(/"/g, '&quot;')}"`;
const valueShape = (value: string) => value.replace(/#[0-9a-f]{3,8}\b/gi, '#0').replace(/\d+(?:\.\d+)?/g, '1');

function imageShape(value: string): string {
  return value
    .split(/[\s,]+/)
    .map((url) => /^data:[^;,]+/i.exec(url)?.[0].toLowerCase() ?? /\.([a-z0-9]+)$/i.exec(url.split(/[?#]/, 1)[0] ?? '')?.[1]?.toLowerCase() ?? '')
    .join(',');
}

function attributeShape(name: string, value: string): string {
  if (name === 'href') return value.startsWith('#') ? '#' : /^mailto:/i.test(value) ? 'mailto:' : '-';
  if (IMAGE_URL_ATTRIBUTES.has(name)) return imageShape(value);
  return valueShape(value);
}

interface Declaration {
  property: string;
  text: string;
}

function declarationsOf(style: string): Declaration[] {
  return style
    .split(';')
    .map((text) => text.trim())
    .filter((text) => text.includes(':'))
    .map((text) => ({ property: text.slice(0, text.indexOf(':')).trim().toLowerCase(), text }));
}

/** Distinct declarations packed into as few `style` attributes as keep each property once per attribute. */
function styleCarriers(declarations: Declaration[]): string[] {
  const carriers: Array<{ properties: Set<string>; texts: string[] }> = [];
  for (const declaration of declarations) {
    let carrier = carriers.find((c) => !c.properties.has(declaration.property));
    if (carrier === undefined) {
      carrier = { properties: new Set(), texts: [] };
      carriers.push(carrier);
    }
    carrier.properties.add(declaration.property);
    carrier.texts.push(declaration.text);
  }
  return carriers.map((c) => `<div style=${quote(c.texts.join('; '))}></div>`);
}

/**
 * The `<style>` elements, whole. Each search starts where the last one ended and a missing close
 * ends the search, so hostile input (`<style>` × 100,000) costs one pass, not one per opening.
 */
function styleBlocks(html: string): string[] {
  const lower = html.toLowerCase();
  const blocks = new Set<string>();
  for (let at = lower.indexOf('<style'); at !== -1; at = lower.indexOf('<style', at)) {
    const close = lower.indexOf('</style', at);
    const end = close === -1 ? -1 : lower.indexOf('>', close);
    if (end === -1) break;
    blocks.add(html.slice(at, end + 1));
    at = end + 1;
  }
  return [...blocks];
}

/** Distinct start tags (by the shape of what caniemail reads) and distinct declarations of style attributes. */
class DistinctParts {
  readonly elements = new Map<string, string>();
  readonly declarations = new Map<string, Declaration>();

  add(tag: HtmlTag): void {
    if (tag.closing || tag.name === '') return;
    const kept: string[] = [];
    const shape: string[] = [];
    for (const { name: attribute, value } of parseAttributes(tag.attributes)) {
      if (attribute === 'style' && value !== undefined) {
        for (const d of declarationsOf(value)) this.declarations.set(`${d.property}:${valueShape(d.text)}`, d);
        continue;
      }
      kept.push(value === undefined ? attribute : `${attribute}=${quote(value)}`);
      shape.push(value === undefined ? attribute : `${attribute}=${attributeShape(attribute, value)}`);
    }
    const key = `${tag.name}|${shape.sort().join(' ')}`;
    if (!this.elements.has(key)) this.elements.set(key, `<${[tag.name, ...kept].join(' ')}>${VOID.has(tag.name) ? '' : `</${tag.name}>`}`);
  }
}

export function featureSkeleton(html: string): string {
  const parts: string[] = [];
  const doctype = /^\s*<!doctype[^>]*>/i.exec(html);
  if (doctype) parts.push(doctype[0].trim());
  // Inside an element: the checker judges only elements' children, never a top-level <style>.
  parts.push(`<div>${styleBlocks(html).join('\n')}</div>`);
  if (html.includes('<!--')) parts.push('<!-- -->');
  const distinct = new DistinctParts();
  walkHtml(html, { text: () => undefined, gap: () => undefined, tag: (tag) => distinct.add(tag) });
  parts.push(...distinct.elements.values(), ...styleCarriers([...distinct.declarations.values()]));
  return parts.join('\n');
}
