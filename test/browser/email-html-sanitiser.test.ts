import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import ts from 'typescript';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { chromiumAvailable, launchChromium } from './browser-kit.js';

/**
 * Finding 14 of issue #20: a `<frameset>` survived sanitising and the browser fetched the sender's
 * page (a read receipt). The dashboard's own CSP hides such a hole, so this renders the sanitiser's
 * output (web/src/email-html.ts, run in Chromium's real DOMParser) on a page with NO policy, in the
 * same sandbox as the dashboard. A control renders the raw mail the same way and must reach the
 * listener, proving the test would see a leak.
 */
const SOURCE = readFileSync(join(import.meta.dirname, '../../web/src/email-html.ts'), 'utf8');
const SANITISER = `${ts.transpileModule(SOURCE, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } }).outputText}
window.prepareHtml = prepareHtml;`;

/** Mails that make a browser fetch or navigate on their own; each path names its vector. */
function hostileMails(origin: string): Record<string, string> {
  return {
    frameset: `<html><head></head><frameset cols="50%,50%"><frame src="${origin}/frameset-frame"><frame src="${origin}/frameset-frame-2"><noframes>Your client has no frames</noframes></frameset></html>`,
    'frameset-after-body-text': `<frameset><frame src="${origin}/late-frame"></frameset><p>text</p>`,
    'meta-refresh': `<html><head><meta http-equiv="refresh" content="0;url=${origin}/meta-refresh"></head><body>hi</body></html>`,
    'meta-refresh-in-body': `<body><p>hi</p><meta http-equiv="Refresh" content="0; URL='${origin}/meta-refresh-body'"></body>`,
    base: `<html><head><base href="${origin}/base/"></head><body><img src="pixel.gif" alt=""><a href="page">relative</a></body></html>`,
    links: ['prefetch', 'preload', 'prerender', 'dns-prefetch', 'preconnect', 'stylesheet', 'icon', 'modulepreload']
      .map((rel) => `<link rel="${rel}" href="${origin}/link-${rel}" as="image">`)
      .join(''),
    iframe: `<p>x</p><iframe src="${origin}/iframe"></iframe><iframe srcdoc="<img src='${origin}/iframe-srcdoc'>"></iframe>`,
    'object-embed': `<object data="${origin}/object"></object><embed src="${origin}/embed"><applet code="x" codebase="${origin}/applet"></applet><portal src="${origin}/portal"></portal>`,
    'form-ping': `<form action="${origin}/form"><button formaction="${origin}/formaction">Go</button></form><a href="https://example.com/" ping="${origin}/ping">link</a>`,
    'media-and-images': [
      `<img src="${origin}/img"><img srcset="${origin}/srcset 2x"><picture><source srcset="${origin}/picture-source"><img alt=""></picture>`,
      `<video poster="${origin}/video-poster" src="${origin}/video-src" autoplay></video><audio src="${origin}/audio" autoplay></audio>`,
      `<video><source src="${origin}/video-source"><track src="${origin}/track" default></video>`,
      `<input type="image" src="${origin}/input-image"><table background="${origin}/table-background"><tr><td>x</td></tr></table>`,
      `<svg><image href="${origin}/svg-image"/></svg><div style="background:url(${origin}/style-attr)">x</div>`,
      `<style>@import url(${origin}/style-import); p { background: url(${origin}/style-url) }</style><p>x</p>`,
    ].join(''),
    'body-background': `<body background="${origin}/body-background"><p>x</p></body>`,
  };
}

describe.skipIf(!chromiumAvailable)('email HTML sanitiser in Chromium, without the dashboard CSP', () => {
  let browser: Browser;
  let page: Page;
  let pageServer: Server;
  let listener: Server;
  let origin: string;
  const seen: string[] = [];

  const listen = async (server: Server) => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  };

  beforeAll(async () => {
    listener = createServer((request, response) => {
      seen.push(request.url ?? '');
      response.end('receipt');
    });
    origin = await listen(listener);
    // The host page: no Content-Security-Policy at all, unlike the dashboard.
    pageServer = createServer((_request, response) => response.setHeader('content-type', 'text/html').end('<!doctype html><title>host</title><body></body>'));
    const pageOrigin = await listen(pageServer);
    browser = await launchChromium();
    page = await browser.newPage();
    await page.goto(pageOrigin);
    await page.addScriptTag({ type: 'module', content: SANITISER });
    await page.waitForFunction(() => 'prepareHtml' in window);
  });
  afterAll(async () => {
    await browser?.close();
    pageServer?.close();
    listener?.close();
  });
  beforeEach(() => {
    seen.length = 0;
  });

  /** Renders HTML in a frame sandboxed as the dashboard's (no scripts), waits, and returns what reached the listener. */
  async function render(html: string): Promise<string[]> {
    await page.evaluate((srcdoc) => {
      document.body.replaceChildren();
      const frame = document.createElement('iframe');
      frame.setAttribute('sandbox', 'allow-same-origin allow-popups allow-popups-to-escape-sandbox');
      frame.srcdoc = srcdoc;
      document.body.append(frame);
    }, html);
    await new Promise((resolve) => setTimeout(resolve, 1200));
    return [...seen];
  }

  const prepare = (html: string, allowRemote: boolean) =>
    page.evaluate(([source, remote]) => (window as unknown as { prepareHtml: (h: string, o: object) => { html: string } }).prepareHtml(source, { allowRemote: remote, inlineImages: new Map() }).html, [html, allowRemote] as const);

  it('control: the raw frameset mail does reach the listener when rendered without the sanitiser', async () => {
    const reached = await render(hostileMails(origin).frameset as string);
    expect(reached).toContain('/frameset-frame');
  });

  it('control: a raw base href and link preloads reach it too (meta refresh does not: the sandbox blocks it)', async () => {
    const mails = hostileMails(origin);
    expect(await render(mails.base as string)).toContain('/base/pixel.gif');
    seen.length = 0;
    expect(await render(mails.links as string)).toEqual(expect.arrayContaining(['/link-stylesheet']));
  });

  for (const [name] of Object.entries(hostileMails('http://x'))) {
    it(`${name}: the sanitised mail keeps no fetching or navigating element and reaches nothing`, async () => {
      const html = hostileMails(origin)[name] as string;
      const prepared = await prepare(html, false);
      const found = await page.evaluate((source) => {
        const doc = new DOMParser().parseFromString(source, 'text/html');
        const bad = doc.querySelectorAll('frameset, frame, iframe, noframes, object, embed, applet, portal, link, form, base[href], meta[http-equiv]:not([http-equiv="Content-Security-Policy"]), [ping], [action], [formaction]');
        return Array.from(bad, (element) => element.outerHTML.slice(0, 120));
      }, prepared);
      expect(found).toEqual([]);
      expect(await render(prepared)).toEqual([]);
    });
  }

  it('with remote images allowed, only images reach the sender: no frame, refresh, link or form', async () => {
    const mails = hostileMails(origin);
    const all = [mails.frameset, mails['meta-refresh-in-body'], mails.links, mails.iframe, mails['object-embed'], mails['form-ping'], `<img src="${origin}/img-allowed">`].join('');
    const reached = await render(await prepare(all, true));
    expect(reached.filter((path) => path !== '/img-allowed')).toEqual([]);
  });
});
