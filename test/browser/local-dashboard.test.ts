import nodemailer from 'nodemailer';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DIALECTS } from '../helpers/databases.js';
import { LOCAL_TEST_ENV } from '../helpers/local-mode.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { chromiumAvailable, ensureWebBuilt, launchChromium, screenshot } from './browser-kit.js';

/** Local mode's dashboard in a real Chromium over plain HTTP: no certificate warning, no sign-in. */
describe.skipIf(!chromiumAvailable).each(TEST_DIALECTS)('local dashboard in Chromium (%s)', (dialect) => {
  let t: TestApp;
  let browser: Browser;
  let page: Page;
  const statuses: number[] = [];

  beforeAll(async () => {
    ensureWebBuilt();
    t = await startTestApp({ dialect, env: LOCAL_TEST_ENV });
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    context.setDefaultTimeout(10_000);
    page = await context.newPage();
    page.on('response', (response) => statuses.push(response.status()));
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await t?.stop();
  });

  it('opens at http://127.0.0.1:<port>/ without a login and shows mail caught for any address live', async () => {
    await page.goto(`http://127.0.0.1:${t.addresses.http.port}/`);
    await page.waitForURL('**/emails');
    await page.locator('.live.on').waitFor();
    const transport = nodemailer.createTransport({ host: '127.0.0.1', port: t.smtpPort });
    await transport.sendMail({ from: 'app@example.com', to: 'new.user@gmail.com', subject: `Welcome aboard ${dialect}`, text: 'Thanks for signing up' });
    transport.close();
    await page.getByText(`Welcome aboard ${dialect}`).click();
    await page.waitForURL('**/emails/*');
    await page.getByText('Thanks for signing up').first().waitFor().catch(() => undefined);
    await screenshot(page, `local-${dialect}-email`);
    expect(page.url()).not.toContain('signin');
  }, 60_000);

  it('serves 200 page views in a minute without a 429', async () => {
    const nav = page.getByRole('navigation', { name: 'Main' });
    for (let view = 0; view < 200; view++) {
      await nav.getByRole('link', { name: view % 2 === 0 ? 'Inboxes' : 'Emails', exact: true }).click();
      await page.waitForURL(view % 2 === 0 ? '**/inboxes' : '**/emails');
    }
    await page.locator('.live.on').waitFor();
    // No timing assertion: on a loaded machine this may take longer than a minute, which only makes it easier.
    expect(statuses.filter((status) => status === 429)).toEqual([]);
  }, 150_000);
});
