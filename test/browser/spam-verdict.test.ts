import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { startDnsServer, type TestDnsServer } from '../helpers/dns-server.js';
import { GTUBE, rspamdAvailable, startRspamd, type Rspamd } from '../helpers/rspamd.js';
import { sendMail } from '../helpers/smtp-client.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { chromiumAvailable, ensureWebBuilt, launchChromium, screenshot } from './browser-kit.js';

/** The email view shows rspamd's verdict with its rules, and fills it in live when the recheck worker gets it. */
describe.skipIf(!chromiumAvailable || !rspamdAvailable())('spam verdict in the email view (Chromium, real rspamd)', () => {
  let dns: TestDnsServer;
  let rspamd: Rspamd;
  let t: TestApp;
  let browser: Browser;
  let page: Page;
  let address = '';
  const shot = (name: string) => screenshot(page, `spam-${name}`);

  beforeAll(async () => {
    ensureWebBuilt();
    dns = await startDnsServer({});
    rspamd = await startRspamd({ dnsServer: dns.address });
    t = await startTestApp({ env: { MAILROOM_SPAM_CHECK: rspamd.url, MAILROOM_SPAM_CHECK_TIMEOUT_MS: '5000', MAILROOM_SPAM_RECHECK_INTERVAL_MS: '200', MAILROOM_DNS_SERVERS: dns.address } });
    browser = await launchChromium();
    const context = await browser.newContext({ ignoreHTTPSErrors: true, viewport: { width: 1280, height: 800 } });
    context.setDefaultTimeout(15_000);
    page = await context.newPage();
    await page.goto(`${t.baseUrl}/signup`);
    await page.getByLabel('Email').fill(`spam-${Date.now()}@example.com`);
    await page.getByLabel('Password').fill('dashboard password 1');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.waitForURL('**/emails');
    address = (await page.getByTestId('first-address').textContent()) ?? '';
  }, 180_000);
  afterEach(async ({ task }) => {
    if (task.result?.state === 'fail') await shot(`FAILED-${task.name.slice(0, 40).replace(/\W+/g, '-')}`).catch(() => undefined);
  });
  afterAll(async () => {
    await browser?.close();
    await t?.stop();
    await rspamd?.close();
    await dns?.close();
  });

  it('shows a GTUBE mail as spam with its score and the GTUBE rule', async () => {
    const sent = await sendMail(t.smtpPort, { from: 'promo@example.com', to: address, subject: 'Spammy offer', text: `Buy now.\n${GTUBE}\n` });
    await page.goto(`${t.baseUrl}/emails/${sent.id}`);
    const verdict = page.getByTestId('spam-verdict');
    await expect.poll(() => verdict.textContent()).toContain('spam score 15 of 15');
    await verdict.getByText(/rules? matched/).click();
    await expect.poll(() => verdict.locator('.spam-rules').textContent()).toContain('GTUBE');
    await shot('gtube-1280');
  });

  it('shows pending while rspamd is down, then the verdict as soon as the recheck worker has it', async () => {
    await rspamd.stop();
    let id: string;
    try {
      id = (await sendMail(t.smtpPort, { from: 'later@example.com', to: address, subject: 'Checked later', text: `Later.\n${GTUBE}\n` })).id;
      await page.goto(`${t.baseUrl}/emails/${id}`);
      await expect.poll(() => page.locator('.meta').textContent()).toContain('pending: the spam filter did not answer in time');
      await shot('pending-1280');
    } finally {
      await rspamd.start();
    }
    await expect.poll(() => page.getByTestId('spam-verdict').textContent(), { timeout: 20_000 }).toContain('spam score 15 of 15');
  }, 60_000);
});
