import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { TEST_DIALECTS, warnIfPostgresSkipped } from '../helpers/databases.js';
import { sendMail } from '../helpers/smtp-client.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { chromiumAvailable, ensureWebBuilt, launchChromium, screenshot } from './browser-kit.js';

warnIfPostgresSkipped();

/** A 4×4 red PNG: the newsletter logo, sent as an inline part. */
const LOGO_PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAQAAAAEAQMAAACTPww9AAAAA1BMVEX/AAAZ4gk3AAAAC0lEQVQI12NgQAcAABQAAe+1GX4AAAAASUVORK5CYII=', 'base64');

/**
 * The issue 18 journey in Chromium: open a verification mail from the Emails list, see its code and
 * inline image, click its link into a new tab, find it by a word of its body, and delete everything
 * a search matches in one action; with screenshots at desktop and phone size and in dark mode.
 */
describe.skipIf(!chromiumAvailable).each(TEST_DIALECTS)('email view, search and bulk actions in Chromium (%s)', (dialect) => {
  let t: TestApp;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let address = '';
  const shot = (name: string) => screenshot(page, `${dialect}-view-${name}`);
  const rows = () => page.locator('.email-row');

  /** Every page of the journey at desktop size, phone size and in dark mode. */
  const shotAllSizes = async (name: string) => {
    await shot(`${name}-1280`);
    await page.setViewportSize({ width: 390, height: 844 });
    await shot(`${name}-390`);
    await page.emulateMedia({ colorScheme: 'dark' });
    await shot(`${name}-390-dark`);
    await page.setViewportSize({ width: 1280, height: 800 });
    await shot(`${name}-1280-dark`);
    await page.emulateMedia({ colorScheme: 'light' });
  };

  beforeAll(async () => {
    ensureWebBuilt();
    t = await startTestApp({ dialect });
    browser = await launchChromium();
    context = await browser.newContext({ ignoreHTTPSErrors: true, viewport: { width: 1280, height: 800 } });
    context.setDefaultTimeout(8000);
    page = await context.newPage();
    page.on('dialog', (dialog) => void dialog.accept());
    await page.goto(`${t.baseUrl}/signup`);
    await page.getByLabel('Email').fill(`view-${dialect}-${Date.now()}@example.com`);
    await page.getByLabel('Password').fill('dashboard password 1');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.waitForURL('**/emails');
    address = (await page.getByTestId('first-address').textContent()) ?? '';
    expect(address).toContain('@');
  });
  afterEach(async ({ task }) => {
    if (task.result?.state === 'fail') await shot(`FAILED-${task.name.slice(0, 40).replace(/\W+/g, '-')}`).catch(() => undefined);
  });
  afterAll(async () => {
    await browser?.close();
    await t?.stop();
  });

  it('opens a verification mail from the list: inline image, code, links into a new tab, never javascript:', async () => {
    const html = [
      '<img id="logo" src="cid:logo@acme.example" alt="Acme">',
      '<p>Your verification code is <b>482913</b>.</p>',
      `<p><a id="verify" href="${t.baseUrl}/healthz?token=abc">Verify your email</a></p>`,
      '<p><a id="evil" href="javascript:document.title=\'PWNED\'">Click me</a> <a id="data" href="data:text/html,PWNED">data</a></p>',
      '<div style="height:1500px">tall</div><p id="footer">Footer of a long mail</p>',
    ].join('');
    const text = `Your verification code is 482913. Verify: ${t.baseUrl}/healthz?token=abc`;
    await sendMail(t.smtpPort, {
      from: 'Acme Accounts <accounts@acme.example>',
      to: address,
      subject: 'Verify your Acme account',
      html,
      text,
      attachments: [{ filename: 'logo.png', content: LOGO_PNG, cid: 'logo@acme.example' }],
    });
    await rows().filter({ hasText: 'Verify your Acme account' }).click();
    await page.waitForURL('**/emails/*');
    await expect(page.getByTestId('email-code').textContent()).resolves.toBe('482913');
    await expect(page.getByText('Acme Accounts <accounts@acme.example>').count()).resolves.toBe(1);
    await expect(page.getByTestId('envelope').textContent()).resolves.toMatch(/MAIL FROM <accounts@acme\.example> · HELO \S+ · client IP 127\.0\.0\.1/);
    const frame = page.frameLocator('iframe.html-body');
    await page.waitForFunction(() => {
      const doc = document.querySelector<HTMLIFrameElement>('iframe.html-body')?.contentDocument;
      const logo = doc?.querySelector<HTMLImageElement>('#logo');
      return logo !== null && logo !== undefined && logo.complete && logo.naturalWidth > 0;
    });
    expect(await frame.locator('#evil').getAttribute('href')).toBeNull();
    expect(await frame.locator('#data').getAttribute('href')).toBeNull();
    // The frame grows to the mail: its footer is inside the frame's box, not scrolled away within it.
    const frameHeight = await page.locator('iframe.html-body').evaluate((el) => el.getBoundingClientRect().height);
    expect(frameHeight).toBeGreaterThan(1500);
    await shotAllSizes('email');

    const opened = context.waitForEvent('page');
    await frame.locator('#verify').click();
    const tab = await opened;
    await tab.waitForLoadState();
    expect(tab.url()).toBe(`${t.baseUrl}/healthz?token=abc`);
    expect(await tab.evaluate(() => window.opener)).toBeNull();
    await tab.close();
    await frame.locator('#evil').click();
    expect(await page.title()).not.toContain('PWNED');

    await page.getByRole('tab', { name: 'Text' }).click();
    const textLink = page.locator('.text-body a');
    expect(await textLink.getAttribute('href')).toBe(`${t.baseUrl}/healthz?token=abc`);
    expect(await textLink.getAttribute('target')).toBe('_blank');
  });

  it('finds the mail by a word of its body', async () => {
    for (let i = 0; i < 3; i++) await sendMail(t.smtpPort, { from: 'bulk@noise.example', to: address, subject: `Noise ${i}`, text: `Periodic zebracorn report ${i}` });
    await page.goto(`${t.baseUrl}/emails`);
    await rows().first().waitFor();
    await page.getByLabel('Search text').fill('482913');
    await page.waitForFunction(() => document.querySelectorAll('.email-row').length === 1);
    await expect(rows().first().textContent()).resolves.toContain('Verify your Acme account');
    await page.getByLabel('Search text').fill('zebracorn');
    await page.waitForFunction(() => document.querySelectorAll('.email-row').length === 3);
    await shotAllSizes('emails-search');
  });

  it('selects everything a search matches and deletes it in one action', async () => {
    await page.getByLabel('Select all matching').check();
    await expect(page.getByTestId('selected-count').textContent()).resolves.toBe('3 selected');
    await page.getByRole('toolbar', { name: 'Bulk actions' }).getByRole('button', { name: 'Delete' }).click();
    await page.getByText('No emails match these filters.').waitFor();
    await page.getByLabel('Search text').fill('');
    await page.waitForFunction(() => document.querySelectorAll('.email-row').length === 1);
    await expect(rows().first().textContent()).resolves.toContain('Verify your Acme account');
  });

  it('selects a range with shift-click and marks it read', async () => {
    for (let i = 0; i < 3; i++) await sendMail(t.smtpPort, { from: 'range@noise.example', to: address, subject: `Range ${i}`, text: 'range' });
    await page.waitForFunction(() => document.querySelectorAll('.email-row').length === 4);
    const checks = page.locator('.row-check');
    await checks.nth(0).click();
    await checks.nth(3).click({ modifiers: ['Shift'] });
    await expect(page.getByTestId('selected-count').textContent()).resolves.toBe('4 selected');
    await page.getByRole('button', { name: 'Mark read' }).click();
    await page.waitForFunction(() => document.querySelectorAll('.email-row.unread').length === 0);
    await shotAllSizes('emails-selected');
  });

  it('shows every other page at desktop and phone size and in dark mode, tables cut not broken', async () => {
    for (const [path, name] of [
      ['/inboxes', 'inboxes'],
      ['/domains', 'domains'],
      ['/webhooks', 'webhooks'],
      ['/integrations', 'integrations'],
      ['/api-keys', 'api-keys'],
      ['/logs', 'logs'],
      ['/usage', 'usage'],
      ['/connect', 'connect'],
      ['/settings/environments', 'environments'],
      ['/settings/storage', 'storage'],
    ]) {
      await page.goto(`${t.baseUrl}${path}`);
      await page.locator('main h1').waitFor();
      await page.waitForFunction(() => !document.body.innerText.includes('Loading…'));
      await shotAllSizes(name as string);
    }
    // The activity log's type column holds SMTP_RECEIVED on one line.
    await page.goto(`${t.baseUrl}/logs`);
    const cell = page.locator('td', { hasText: 'SMTP_RECEIVED' }).first();
    const { height, lineHeight } = await cell.evaluate((el) => ({ height: el.clientHeight, lineHeight: parseFloat(getComputedStyle(el).lineHeight) }));
    expect(height).toBeLessThan(lineHeight * 2 + 20);
    // Ten pages, four screenshots each: longer than the default on a shared, loaded machine.
  }, 120_000);

  it("connects: this server's real ports and the user's address in snippets that copy", async () => {
    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
    await page.goto(`${t.baseUrl}/connect`);
    const smtp = page.getByRole('region', { name: 'SMTP: send mail in' });
    // The details arrive after the page: wait for them before counting.
    await smtp.locator('code', { hasText: String(t.addresses.smtp.port) }).first().waitFor();
    await expect(smtp.locator('code', { hasText: String(t.addresses.smtp.port) }).count()).resolves.toBe(1);
    await expect(smtp.textContent()).resolves.toContain('STARTTLS offered, not required');
    await expect(page.getByRole('region', { name: 'IMAP: read with a mail client' }).locator('code', { hasText: String(t.addresses.imap.port) }).count()).resolves.toBe(1);
    const nodemailer = page.locator('[data-snippet="nodemailer"]');
    await expect(nodemailer.locator('pre').textContent()).resolves.toContain(`to: '${address}'`);
    await nodemailer.getByRole('button', { name: /^Copy/ }).click();
    await expect(page.evaluate(() => navigator.clipboard.readText())).resolves.toContain(`port: ${t.addresses.smtp.port}`);
    await expect(page.locator('[data-snippet]').count()).resolves.toBe(7);
  });

  it('creates and deletes an environment, and refuses a bucket it cannot reach', async () => {
    await page.goto(`${t.baseUrl}/settings/environments`);
    await page.getByLabel('Name', { exact: true }).fill('Staging');
    await page.getByRole('button', { name: 'Create environment' }).click();
    const row = page.locator('tr', { hasText: 'staging' });
    await row.waitFor();
    await row.getByRole('button', { name: 'Delete' }).click();
    await row.waitFor({ state: 'detached' });
    await expect(page.locator('tr', { hasText: 'production' }).getByText('Always kept').count()).resolves.toBe(1);

    await page.goto(`${t.baseUrl}/settings/storage`);
    await expect(page.getByTestId('storage-current').textContent()).resolves.toContain('Mail is kept by this service');
    await page.getByLabel('Bucket', { exact: true }).fill('my-mail');
    await page.getByLabel('Endpoint').fill('http://127.0.0.1:9/');
    await page.getByLabel('Access key id').fill('AKIAEXAMPLE');
    await page.getByLabel('Secret access key').fill('secret');
    await page.getByRole('button', { name: 'Test and save' }).click();
    await page.locator('form .error').waitFor();
    await expect(page.getByTestId('storage-current').textContent()).resolves.toContain('Mail is kept by this service');
    await shotAllSizes('storage-refused');
  });

  it('says when the server cannot be reached, and recovers by itself', async () => {
    await page.goto(`${t.baseUrl}/emails`);
    await rows().first().waitFor();
    const banner = page.locator('.offline-banner');
    await context.setOffline(true);
    try {
      await page.getByLabel('Search text').fill('anything');
      await banner.waitFor();
      expect(await banner.textContent()).toContain('cannot be reached');
      await shot('offline-1280');
    } finally {
      await context.setOffline(false);
    }
    await banner.waitFor({ state: 'detached', timeout: 10_000 });
  });

  it('says so for an unknown page', async () => {
    await page.goto(`${t.baseUrl}/no-such-page`);
    await page.getByRole('heading', { name: 'Page not found' }).waitFor();
    await shotAllSizes('not-found');
    await page.getByRole('link', { name: 'Go to Emails' }).click();
    await page.waitForURL('**/emails');
  });

  it('empties an inbox from its page', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Inboxes', exact: true }).click();
    await page.getByRole('link', { name: address }).click();
    await page.getByRole('heading', { name: /Messages \(4\)/ }).waitFor();
    await shotAllSizes('inbox');
    await page.getByRole('button', { name: 'Empty inbox' }).click();
    await page.getByRole('heading', { name: /Messages \(0\)/ }).waitFor();
  });
});
