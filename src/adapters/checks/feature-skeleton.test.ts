import { caniemail } from 'caniemail';
import { describe, expect, it } from 'vitest';
import { newsletterHtml } from '../../../test/helpers/newsletter.js';
import { featureSkeleton } from './feature-skeleton.js';

const CLIENTS = ['gmail.desktop-webmail', 'outlook.windows', 'apple-mail.ios', 'yahoo.desktop-webmail'] as const;

/** Every (client, feature, support) caniemail reports, as a sorted list of strings. */
function findings(html: string): string[] {
  const { issues } = caniemail({ clients: [...CLIENTS], html });
  const found = new Set<string>();
  for (const [level, byClient] of [['none', issues.errors], ['partial', issues.warnings]] as const) {
    for (const [client, list] of byClient) for (const issue of list) found.add(`${client} ${level} ${issue.title}`);
  }
  return [...found].sort();
}

const handWritten = `<!doctype html><html lang="en" dir="ltr"><head><meta name="color-scheme" content="light dark">
<style>/* c */ .a:hover { color: red } @media (max-width: 600px) { .b { width: 100% !important } } :root { --x: 2px }</style>
<title>t</title></head><body style="margin:0; background-image:url(bg.webp)">
<!--[if mso]><table><tr><td><![endif]-->
<table role="presentation" cellpadding="0" background="tile.gif"><tr><td valign="top" style="padding: 10px 2em; display:flex; gap: 4px">
<a href="#top" name="top">top</a> <a href="mailto:a@example.com">mail</a> <a href="https://example.com/x" target="_blank">x</a>
<img src="data:image/svg+xml;base64,PHN2Zy8+" alt=""> <img src="https://example.com/p.avif" srcset="https://example.com/p2.webp 2x" loading="lazy">
<picture><source srcset="a.avif" type="image/avif"></picture><svg><image href="x.png"/></svg>
<input type="checkbox" required><button>b</button><video poster="p.jpg"></video>
<p style="margin:-4px; color: var(--x); width: calc(100% - 2px); font-family: system-ui">p</p>
</td></tr></table></body></html>`;

describe('featureSkeleton', () => {
  it('triggers exactly the caniemail findings of the full HTML (hand-written mail with many features)', () => {
    expect(findings(featureSkeleton(handWritten))).toEqual(findings(handWritten));
  });

  it('triggers exactly the findings of a generated newsletter, at a fraction of its size', () => {
    const html = newsletterHtml(12 * 1024);
    const skeleton = featureSkeleton(html);
    expect(skeleton.length).toBeLessThan(html.length / 4);
    expect(findings(skeleton)).toEqual(findings(html));
  });

  it('reads hostile HTML in one pass (unclosed tags, quotes, styles and comments repeated) within the test timeout', () => {
    for (const unit of ['<a b=c ', '<a "', "<p x='", '<style>', '<title>', '<!--']) {
      expect(featureSkeleton(unit.repeat(40_000)).length).toBeLessThan(1000);
    }
  });
});
