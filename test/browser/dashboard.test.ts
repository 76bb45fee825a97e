import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { TEST_DIALECTS, warnIfPostgresSkipped } from '../helpers/databases.js';
import { eventually } from '../helpers/eventually.js';
import { sendMail } from '../helpers/smtp-client.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { chromiumAvailable, ensureWebBuilt, launchChromium, screenshot } from './browser-kit.js';

warnIfPostgresSkipped();

const PASSWORD = 'dashboard password 1';

/**
 * The dashboard end to end in a real Chromium against a real Mailroom: sign up, an inbox, mail over
 * SMTP showing up live, the OTP, a webhook and a key shown once, and an email whose script never runs.
 */
describe.skipIf(!chromiumAvailable).each(TEST_DIALECTS)('dashboard in Chromium (%s)', (dialect) => {
  let t: TestApp;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const email = `dev-${dialect}-${Date.now()}@example.com`;
  const shot = (name: string) => screenshot(page, `${dialect}-${name}`);
  const nav = async (label: string) => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: label, exact: true }).click();
  };

  beforeAll(async () => {
    ensureWebBuilt();
    // Webhooks to a closed local port fail at once, and after one quick retry are FAILED (resendable).
    t = await startTestApp({ dialect, env: { MAILROOM_ALLOW_PRIVATE_WEBHOOKS: '1', MAILROOM_WEBHOOK_RETRY_SCHEDULE: '50' } });
    browser = await launchChromium();
    context = await browser.newContext({ ignoreHTTPSErrors: true, viewport: { width: 1280, height: 800 } });
    // Fail on the step that is stuck, well before the test's own timeout.
    context.setDefaultTimeout(8000);
    page = await context.newPage();
    page.on('dialog', (dialog) => {
      if (dialog.type() === 'confirm') void dialog.accept();
      else throw new Error(`unexpected ${dialog.type()} dialog: ${dialog.message()}`);
    });
  });
  afterEach(async ({ task }) => {
    if (task.result?.state === 'fail') await shot(`FAILED-${task.name.slice(0, 40).replace(/\W+/g, '-')}`).catch(() => undefined);
  });
  afterAll(async () => {
    await browser?.close();
    await t?.stop();
  });

  it('signs up and lands on a live, empty email list with a first inbox address', async () => {
    await page.goto(t.baseUrl);
    await page.waitForURL('**/signin');
    await shot('signin');
    await page.getByRole('link', { name: 'Create an account' }).click();
    await page.getByRole('heading', { name: 'Create your Mailroom account' }).waitFor();
    await shot('signup');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.waitForURL('**/emails');
    await expect(page.getByText('Waiting for your first email…')).toBeTruthy();
    await page.getByTestId('first-address').waitFor();
    await page.locator('.live.on').waitFor();
    await shot('emails-empty');
  });

  let inboxAddress = '';
  it('creates an inbox and shows the OTP of mail sent to it without reloading', async () => {
    await nav('Inboxes');
    await page.getByLabel('Prefix').fill(`otp-${dialect}`);
    await page.getByLabel('Tags').fill('signup, e2e');
    await page.getByRole('button', { name: 'Create inbox' }).click();
    const link = page.getByRole('link', { name: new RegExp(`^otp-${dialect}`) });
    inboxAddress = (await link.textContent()) ?? '';
    expect(inboxAddress).toMatch(new RegExp(`^otp-${dialect}.*@mailroom\\.localhost$`));
    await shot('inboxes');
    await link.click();
    await page.getByTestId('waiting').waitFor();
    await sendMail(t.smtpPort, { from: 'auth@shop.example', to: inboxAddress, subject: 'Your sign-in code', text: 'Your verification code is 482913. It expires in 10 minutes.' });
    await expect(page.getByTestId('otp').textContent({ timeout: 5000 })).resolves.toBe('482913');
    await shot('inbox');
  });

  it('shows a new email in the list within 200 ms of the SMTP 250, and opens it with j/k and Enter', async () => {
    await nav('Emails');
    await page.locator('.email-row').first().waitFor();
    const subject = `Live arrival ${Date.now()}`;
    await page.evaluate((wanted) => {
      const win = window as unknown as { appearedAt?: number };
      new MutationObserver((_records, observer) => {
        if (Array.from(document.querySelectorAll('.email-row .subject')).some((el) => el.textContent?.includes(wanted))) {
          win.appearedAt = Date.now();
          observer.disconnect();
        }
      }).observe(document.body, { childList: true, subtree: true, characterData: true });
    }, subject);
    await sendMail(t.smtpPort, { from: 'news@shop.example', to: inboxAddress, subject, text: 'hello' });
    const acceptedAt = Date.now();
    await page.locator('.email-row', { hasText: subject }).waitFor({ timeout: 5000 });
    const appearedAt = await page.evaluate(() => (window as unknown as { appearedAt: number }).appearedAt);
    console.log(`dashboard (${dialect}): new email visible ${appearedAt - acceptedAt} ms after the SMTP 250`);
    expect(appearedAt - acceptedAt).toBeLessThan(200);
    await shot('emails');

    await page.keyboard.press('j');
    await page.keyboard.press('j');
    await page.keyboard.press('k');
    await expect(page.locator('.email-row.active').textContent()).resolves.toContain(subject);
    await page.keyboard.press('Enter');
    await page.waitForURL('**/emails/*');
    await page.getByRole('heading', { name: subject }).waitFor();
    await page.getByText('SPF').first().waitFor();
    await page.getByRole('button', { name: 'Mark unread' }).waitFor();
    await page.getByRole('heading', { name: 'Activity' }).waitFor();
    await page.locator('.timeline li').first().waitFor();
    await shot('email');
  });

  it("never runs an email's scripts and blocks its remote images until asked", async () => {
    const html = [
      '<p id="greeting">Hello from a hostile email</p>',
      '<script>document.body.innerHTML = "PWNED"; parent.document.title = "PWNED"; alert(1);</script>',
      '<img src="x" onerror="document.body.innerHTML = \'PWNED BY ONERROR\'">',
      '<img src="https://tracker.example/pixel.png" alt="tracker">',
    ].join('');
    await sendMail(t.smtpPort, { from: 'evil@shop.example', to: inboxAddress, subject: 'Scripted email', html, text: 'plain' });
    await nav('Emails');
    await page.locator('.email-row', { hasText: 'Scripted email' }).click();
    const iframe = page.locator('iframe.html-body');
    await iframe.waitFor();
    // Scripts never run: no allow-scripts (so allow-same-origin, which sizes the frame, is safe).
    expect((await iframe.getAttribute('sandbox'))?.split(' ').sort()).toEqual(['allow-popups', 'allow-popups-to-escape-sandbox', 'allow-same-origin']);
    const frame = page.frameLocator('iframe.html-body');
    await frame.locator('#greeting').waitFor();
    expect(await frame.locator('body').innerText()).not.toContain('PWNED');
    expect(await page.title()).not.toContain('PWNED');
    await page.getByText('1 remote image is blocked').waitFor();
    expect(await frame.locator('img[alt=tracker]').getAttribute('src')).toBe('data:,');
    await shot('email-html');
    await page.getByRole('tab', { name: 'Raw' }).click();
    await page.locator('.raw-body', { hasText: 'Subject: Scripted email' }).waitFor();
  });

  it('removes frames, refreshes, links and forms: opening the email makes no request to the sender', async () => {
    const seen: string[] = [];
    const listener = createServer((request, response) => {
      seen.push(request.url ?? '');
      response.end('receipt');
    });
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(listener.address() as AddressInfo).port}`;
    try {
      const html = [
        `<html><head><meta http-equiv="refresh" content="0;url=${origin}/refresh"><link rel="stylesheet" href="${origin}/link"><base href="${origin}/">`,
        `</head><frameset><frame src="${origin}/frame"><noframes><form action="${origin}/form"><button formaction="${origin}/button">Go</button></form></noframes></frameset></html>`,
      ].join('');
      await sendMail(t.smtpPort, { from: 'tracker@shop.example', to: inboxAddress, subject: 'Framed email', html, text: 'plain' });
      await nav('Emails');
      await page.locator('.email-row', { hasText: 'Framed email' }).click();
      await page.locator('iframe.html-body').waitFor();
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect(seen).toEqual([]);
    } finally {
      listener.close();
    }
  });

  it('creates a webhook linked to an inbox, shows its secret once, and lists its failed delivery with a resend', async () => {
    const hookUrl = 'https://127.0.0.1:9/mailroom';
    await nav('Webhooks');
    await page.getByLabel('URL').fill(hookUrl);
    await page.getByLabel('Description').fill('CI receiver');
    await page.getByLabel('Only for these inboxes').selectOption({ label: inboxAddress });
    await page.getByRole('button', { name: 'Create webhook' }).click();
    const secret = await page.getByTestId('secret-once').locator('.secret-value').textContent();
    expect(secret).toMatch(/^whsec_/);
    await shot('webhooks');
    await page.getByRole('button', { name: 'I have saved it' }).click();
    await sendMail(t.smtpPort, { from: 'orders@shop.example', to: inboxAddress, subject: 'Order shipped', text: 'on its way' });
    const api = t.client();
    const token = await page.evaluate(async () => (await (await fetch('/api/v1/auth/refresh', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).json()).accessToken as string);
    await eventually(async () => {
      const logs = await api.get('/api/v1/logs?type=WEBHOOK&status=FAILED', { apiKey: null, headers: { authorization: `Bearer ${token}` } });
      return logs.json().data.length > 0 ? true : undefined;
    }, 'the failed webhook delivery');
    await page.getByRole('link', { name: hookUrl }).click();
    await page.getByRole('heading', { name: 'Deliveries' }).waitFor();
    expect(await page.locator('.meta').textContent()).not.toContain(secret ?? 'never');
    await page.getByRole('region', { name: 'Linked inboxes' }).getByText(inboxAddress).waitFor();
    await page.getByRole('cell', { name: /FAILED/ }).first().waitFor();
    await shot('webhook');
    await page.getByRole('button', { name: 'Resend' }).first().click();
    await page.getByRole('cell', { name: /PENDING|FAILED/ }).nth(1).waitFor();
  });

  it('creates an API key shown once, which then works against the API, and deactivates it', async () => {
    await nav('API keys');
    await page.getByLabel('Name').fill('CI pipeline');
    await page.getByRole('button', { name: 'Create key' }).click();
    const key = (await page.getByTestId('secret-once').locator('.secret-value').textContent()) ?? '';
    expect(key).toMatch(/^mr_/);
    expect((await t.client(key).get('/api/v1/inboxes')).json().data.map((i: { address: string }) => i.address)).toContain(inboxAddress);
    await shot('api-keys');
    await page.getByRole('button', { name: 'I have saved it' }).click();
    expect(await page.getByTestId('secret-once').count()).toBe(0);
    const row = page.getByRole('row', { name: /CI pipeline/ });
    await expect(row.textContent()).resolves.toContain(key.slice(0, 8));
    await row.getByRole('button', { name: 'Deactivate' }).click();
    await row.getByText('inactive').waitFor();
    expect((await t.client(key).get('/api/v1/inboxes')).status).toBe(401);
  });

  it('shows the domains, integrations, activity log and usage pages', async () => {
    await nav('Domains');
    await page.getByRole('textbox', { name: /^Domain/ }).fill(`mail-${dialect}.example.org`);
    await page.getByRole('button', { name: 'Add domain' }).click();
    await page.getByRole('heading', { name: 'DNS records' }).waitFor();
    await page.getByRole('cell', { name: 'MX', exact: true }).waitFor();
    await shot('domain');
    await nav('Domains');
    await page.getByRole('link', { name: `mail-${dialect}.example.org` }).waitFor();
    await shot('domains');
    await nav('Integrations');
    await page.getByRole('button', { name: 'Add integration' }).waitFor();
    await shot('integrations');
    await nav('Activity log');
    await page.getByRole('cell', { name: 'SMTP_RECEIVED' }).first().waitFor();
    await shot('logs');
    await nav('Usage & plan');
    await page.getByText('(your plan)').waitFor();
    expect(await page.getByRole('row', { name: /your plan/ }).textContent()).toContain('free');
    await shot('usage');
  });

  it('searches the list by subject and sender and filters it by read state', async () => {
    await nav('Emails');
    const rows = page.locator('.email-row');
    await rows.first().waitFor();
    await page.getByLabel('Search in').selectOption('subject');
    await page.getByLabel('Search text').fill('order');
    await page.waitForFunction(() => document.querySelectorAll('.email-row').length === 1);
    await expect(rows.first().textContent()).resolves.toContain('Order shipped');
    await page.getByLabel('Search in').selectOption('from');
    await page.getByLabel('Search text').fill('evil@');
    await page.locator('.email-row', { hasText: 'Scripted email' }).waitFor();
    await page.waitForFunction(() => document.querySelectorAll('.email-row').length === 1);
    await page.getByRole('button', { name: 'Clear' }).click();
    await page.getByLabel('Read state').selectOption('true');
    // Opened emails are read; the unread ones (never opened) drop out of the list.
    await page.waitForFunction(() => document.querySelectorAll('.email-row.unread').length === 0 && document.querySelectorAll('.email-row').length > 0);
    await page.locator('.email-row', { hasText: 'Scripted email' }).waitFor();
    await page.getByRole('button', { name: 'Clear' }).click();
  });

  it('works at phone width and in dark mode', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.getByRole('button', { name: 'Menu' }).click();
    await nav('Emails');
    await page.locator('.email-row').first().waitFor();
    await shot('phone-dark-emails');
    await page.getByRole('button', { name: 'Menu' }).click();
    await nav('Inboxes');
    await page.getByRole('link', { name: inboxAddress }).click();
    await page.getByTestId('otp').waitFor();
    await shot('phone-dark-inbox');
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.emulateMedia({ colorScheme: 'light' });
  });

  it('renders 10,000 emails in a virtualised list that scrolls without long frames', async () => {
    const now = Date.now();
    const emails = Array.from({ length: 10_000 }, (_, i) => ({
      id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
      from: `sender${i}@example.com`,
      to: ['x@mailroom.localhost'],
      subject: `Bulk email number ${i}`,
      snippet: 'A synthetic email for the rendering test',
      createdAt: new Date(now - i * 1000).toISOString(),
      read: i % 3 === 0,
      hasAttachments: false,
    }));
    await page.route('**/api/v1/emails?*', (route) =>
      route.fulfill({ json: { data: emails, currentPage: 1, perPage: 100, totalItems: emails.length, totalPages: 1, hasNextPage: false } }),
    );
    await nav('Inboxes');
    await nav('Emails');
    await page.getByText('Bulk email number 0', { exact: true }).waitFor();
    const rendered = await page.locator('.email-row').count();
    expect(rendered).toBeLessThan(60);
    const frameMs = await page.evaluate(async () => {
      const viewport = document.querySelector('.virtual-viewport') as HTMLElement;
      const frames: number[] = [];
      await new Promise((resolve) => requestAnimationFrame(resolve));
      let last = performance.now();
      for (let step = 1; step <= 60; step += 1) {
        viewport.scrollTop = (viewport.scrollHeight * step) / 60;
        await new Promise((resolve) => requestAnimationFrame(resolve));
        const now = performance.now();
        frames.push(now - last);
        last = now;
      }
      return frames.sort((a, b) => a - b);
    });
    console.log(`dashboard (${dialect}): 10,000-email list, ${rendered} rows in the DOM, scroll frames ${frameMs.map((ms) => ms.toFixed(0)).join(' ')} ms`);
    // Each step jumps ~170 rows (a full redraw of the window). Frame times depend on the machine's load;
    // a list that rendered every row would take seconds per frame, so this bound still catches that.
    expect(frameMs[Math.floor(frameMs.length / 2)]).toBeLessThan(200);
    await page.getByText('Bulk email number 9999', { exact: true }).waitFor();
    await page.unroute('**/api/v1/emails?*');
  });

  it('signs out and back in', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL('**/signin');
    await page.reload();
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill('wrong password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').getByText('Wrong email or password').waitFor();
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL('**/emails');
    await page.reload();
    await page.locator('.email-row').first().waitFor();
  });
});
