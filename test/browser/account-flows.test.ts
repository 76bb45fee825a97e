import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { linkToken, startSmtpRelay, type SmtpRelay } from '../helpers/smtp-relay.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { chromiumAvailable, ensureWebBuilt, launchChromium, screenshot } from './browser-kit.js';

const PASSWORD = 'dashboard password 1';
const CHANGED = 'changed password 22';
const RESET = 'reset password 333';

/**
 * Account flows with email verification, in Chromium against a real Mailroom whose mail relay is a
 * real SMTP server in this test: sign up → "check your email" → the emailed link → signed in;
 * password change on the Account page; forgot password → the emailed link → new password.
 */
describe.skipIf(!chromiumAvailable)('account flows in Chromium, with a mail relay', () => {
  let relay: SmtpRelay;
  let t: TestApp;
  let browser: Browser;
  let page: Page;
  const email = `flow-${Date.now()}@example.com`;

  /** Desktop, phone and dark-mode screenshots of the page as it is now. */
  async function shots(name: string): Promise<void> {
    await screenshot(page, `account-${name}`);
    await page.setViewportSize({ width: 390, height: 844 });
    await screenshot(page, `account-${name}-390`);
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.emulateMedia({ colorScheme: 'dark' });
    await screenshot(page, `account-${name}-dark`);
    await page.emulateMedia({ colorScheme: 'light' });
  }

  /** The emailed link, opened on this server (links are built on MAILROOM_PUBLIC_URL). */
  const open = (link: string) => page.goto(link.replace('https://dashboard.example', t.baseUrl));
  const linkIn = (text: string) => (/https:\/\/dashboard\.example\/\S+/.exec(text) ?? [''])[0];

  beforeAll(async () => {
    ensureWebBuilt();
    relay = await startSmtpRelay();
    t = await startTestApp({ env: { MAILROOM_SMTP_RELAY_URL: relay.url, MAILROOM_PUBLIC_URL: 'https://dashboard.example' } });
    browser = await launchChromium();
    const context = await browser.newContext({ ignoreHTTPSErrors: true, viewport: { width: 1280, height: 800 } });
    context.setDefaultTimeout(8000);
    page = await context.newPage();
  });
  afterEach(async ({ task }) => {
    if (task.result?.state === 'fail') await screenshot(page, `account-FAILED-${task.name.slice(0, 40).replace(/\W+/g, '-')}`).catch(() => undefined);
  });
  afterAll(async () => {
    await browser?.close();
    await t?.stop();
    await relay?.close();
  });

  it('signs up, says to check the email, and the emailed link signs in to a new account with its first inbox', async () => {
    await page.goto(`${t.baseUrl}/signup`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('heading', { name: 'Check your email' }).waitFor();
    expect(page.url()).toMatch(/\/signup$/);
    await shots('signup-check-email');

    const mail = await relay.waitFor(email, 'Confirm your Mailroom account');
    expect(linkIn(mail.text)).toMatch(/^https:\/\/dashboard\.example\/verify-email#token=/);
    await open(linkIn(mail.text));
    await page.waitForURL('**/emails');
    await page.getByTestId('first-address').waitFor();
    expect(page.url()).not.toContain('token');
  });

  it('refuses the same link a second time, saying what to do', async () => {
    const mail = await relay.waitFor(email, 'Confirm your Mailroom account');
    const token = linkToken(mail.text, 'verify-email');
    const other = await browser.newContext({ ignoreHTTPSErrors: true, viewport: { width: 1280, height: 800 } });
    const second = await other.newPage();
    const previous = page;
    page = second;
    try {
      await page.goto(`${t.baseUrl}/verify-email#token=${token}`);
      await page.getByRole('alert').filter({ hasText: 'not valid' }).waitFor();
      await shots('verify-link-used');
    } finally {
      page = previous;
      await other.close();
    }
  });

  it('changes the password on the Account page (linked from the top bar)', async () => {
    await page.locator('.topbar').getByRole('link', { name: email }).click();
    await page.waitForURL('**/settings/account');
    await page.getByRole('heading', { name: 'Change password' }).waitFor();
    await page.getByLabel('Current password').fill('not the password');
    await page.getByLabel(/^New password/).fill(CHANGED);
    await page.getByLabel('Repeat the new password').fill(CHANGED);
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByRole('alert').filter({ hasText: 'current password' }).waitFor();
    await page.getByLabel('Current password').fill(PASSWORD);
    await page.getByLabel(/^New password/).fill(CHANGED);
    await page.getByLabel('Repeat the new password').fill(CHANGED);
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByText('Password changed.').waitFor();
    await shots('settings');
  });

  it('resets a forgotten password through the emailed link, and signs in with it', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL('**/signin');
    await page.getByRole('link', { name: 'Forgot your password?' }).click();
    await page.waitForURL('**/forgot-password');
    await shots('forgot-password');
    await page.getByLabel('Email').fill(email);
    await page.getByRole('button', { name: 'Send reset link' }).click();
    await page.getByRole('heading', { name: 'Check your email' }).waitFor();
    await shots('forgot-password-sent');

    const mail = await relay.waitFor(email, 'Reset your Mailroom password');
    await open(linkIn(mail.text));
    await page.getByRole('heading', { name: 'Choose a new password' }).waitFor();
    expect(page.url()).not.toContain('token');
    await shots('reset-password');
    await page.getByLabel(/^New password/).fill(RESET);
    await page.getByLabel('Repeat the new password').fill('something else entirely');
    await page.getByRole('button', { name: 'Set password and sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'differ' }).waitFor();
    await page.getByLabel('Repeat the new password').fill(RESET);
    await page.getByRole('button', { name: 'Set password and sign in' }).click();
    await page.waitForURL('**/emails');

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL('**/signin');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(CHANGED);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'Wrong email or password' }).waitFor();
    await page.getByLabel('Password').fill(RESET);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL('**/emails');
  });
});
