import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { sendMail } from '../helpers/smtp-client.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { chromiumAvailable, ensureWebBuilt, launchChromium, screenshot } from './browser-kit.js';

/**
 * Issue 19 in Chromium: the email view's "HTML check" and "Links" tabs, with screenshots at desktop
 * and phone size and in dark mode. Links point at a local site (MAILROOM_LINK_CHECK_ALLOW_PRIVATE=1).
 */
describe.skipIf(!chromiumAvailable)('email view: HTML check and Links tabs in Chromium', () => {
  let t: TestApp;
  let site: Server;
  let base = '';
  let browser: Browser;
  let page: Page;
  const shot = (name: string) => screenshot(page, `checks-${name}`);
  const shotAllSizes = async (name: string) => {
    await shot(`${name}-1280`);
    await page.setViewportSize({ width: 390, height: 844 });
    await page.getByRole('tablist').scrollIntoViewIfNeeded();
    await page.evaluate(() => window.scrollBy(0, document.querySelector('[role=tablist]')?.getBoundingClientRect().top ?? 0));
    await shot(`${name}-390`);
    await page.emulateMedia({ colorScheme: 'dark' });
    await shot(`${name}-390-dark`);
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.evaluate(() => window.scrollTo(0, 0));
    await shot(`${name}-1280-dark`);
    await page.emulateMedia({ colorScheme: 'light' });
  };

  beforeAll(async () => {
    ensureWebBuilt();
    site = createServer((req, res) => {
      if (req.url === '/pricing') return res.writeHead(301, { location: '/plans' }).end();
      res.writeHead(req.url === '/plans' || req.url === '/logo.png' ? 200 : 404).end();
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
    t = await startTestApp({ env: { MAILROOM_LINK_CHECK_ALLOW_PRIVATE: '1' } });
    browser = await launchChromium();
    const context = await browser.newContext({ ignoreHTTPSErrors: true, viewport: { width: 1280, height: 800 } });
    context.setDefaultTimeout(10_000);
    page = await context.newPage();
    await page.goto(`${t.baseUrl}/signup`);
    await page.getByLabel('Email').fill(`checks-${Date.now()}@example.com`);
    await page.getByLabel('Password').fill('dashboard password 1');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.waitForURL('**/emails');
    const address = (await page.getByTestId('first-address').textContent()) ?? '';
    const html = `<html><head><style>@media (max-width:600px){.col{width:100%!important}} a:hover{color:red}</style></head>
      <body style="margin:0"><table role="presentation" width="600"><tr><td class="col" style="padding:16px;border-radius:8px;display:flex;background-image:url(${base}/logo.png)">
      <img src="${base}/logo.png" width="120" alt="Logo"><p style="margin:-2px 0 0">Our new plans are here.</p>
      <a href="${base}/pricing" style="display:inline-block;padding:10px 18px;border-radius:4px">See pricing</a> <a href="${base}/old-page">Old page</a>
      </td></tr></table></body></html>`;
    await sendMail(t.smtpPort, { from: 'News <news@acme.example>', to: address, subject: 'New plans', html, text: 'Our new plans are here.' });
    await page.locator('.email-row').filter({ hasText: 'New plans' }).click();
  });
  afterEach(async ({ task }) => {
    if (task.result?.state === 'fail') await shot(`FAILED-${task.name.slice(0, 40).replace(/\W+/g, '-')}`).catch(() => undefined);
  });
  afterAll(async () => {
    await browser?.close();
    await t?.stop();
    site?.close();
  });

  it('HTML check: a score, a row per client with its unsupported features as badges, and the features in use', async () => {
    await page.getByRole('tab', { name: 'HTML check' }).click();
    const clients = page.getByRole('table', { name: 'Support per email client' });
    const windows = clients.getByRole('row').filter({ hasText: 'Outlook' }).filter({ hasText: 'Windows' }).first();
    await expect.poll(() => windows.textContent()).toContain('border-radius');
    expect(await page.locator('.message-check').textContent()).toMatch(/Overall \d+\/100/);
    expect(await clients.getByRole('row').filter({ hasText: 'Gmail' }).count()).toBeGreaterThan(1);
    const features = page.getByRole('table', { name: 'Features in use' });
    await expect.poll(() => features.getByRole('link', { name: 'display:flex' }).getAttribute('href')).toContain('caniemail.com');
    await shotAllSizes('html-check');
  });

  it('Links: a status badge per URL, the redirect chain, and broken links marked', async () => {
    await page.getByRole('tab', { name: 'Links' }).click();
    const table = page.getByRole('table', { name: 'Link status' });
    const pricing = table.getByRole('row').filter({ hasText: `${base}/pricing` });
    await expect.poll(() => pricing.textContent()).toContain('301 → 200');
    expect(await pricing.locator('.badge').textContent()).toBe('200');
    expect(await table.getByRole('row').filter({ hasText: `${base}/old-page` }).locator('.badge.bad').textContent()).toBe('404');
    expect(await page.locator('.message-check').textContent()).toContain('2 ok');
    await shotAllSizes('links');
  });
});
