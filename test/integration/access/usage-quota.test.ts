import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { usageMonthOf } from '../../../src/core/plans.js';
import { TEST_DIALECTS, warnIfPostgresSkipped } from '../../helpers/databases.js';
import { RawSmtpClient } from '../../helpers/raw-smtp.js';
import { sendMail } from '../../helpers/smtp-client.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';

warnIfPostgresSkipped();

const QUOTA = 3;

describe.each(TEST_DIALECTS)('monthly email quota, spec 8 (%s)', (dialect) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ dialect });
  });
  afterAll(() => t?.stop());

  async function tenantWithQuota(name: string, monthlyEmails: number | null) {
    const tenant = await t.createTenant(name, 'free');
    await t.app.ctx.services.tenants.setLimitOverrides(tenant.id, { requestsPerMinute: null, monthlyEmails });
    const client = t.client(tenant.apiKey);
    const inbox = (await client.post('/api/v1/inboxes', {})).json<{ id: string; address: string }>();
    return { tenant, client, inbox };
  }

  const FREE_RESOURCES = { webhooks: 10, chatappIntegrations: 5, inboxes: 100 };

  it('GET /usage shows the month, the count, the limit and the plans', async () => {
    const { client } = await tenantWithQuota('Shape', null);
    const usage = (await client.get('/api/v1/usage')).json();
    expect(usage).toEqual({
      month: usageMonthOf(new Date()),
      periodStart: expect.stringMatching(/^\d{4}-\d{2}-01T00:00:00\.000Z$/),
      resetsAt: expect.stringMatching(/^\d{4}-\d{2}-01T00:00:00\.000Z$/),
      emails: { used: 0, limit: 1000, remaining: 1000 },
      webhooks: { deliveries: 0, succeeded: 0, failed: 0 },
      plan: { name: 'free', requestsPerMinute: 100, monthlyEmails: 1000, customStorage: false, maxResources: FREE_RESOURCES },
      plans: {
        free: { requestsPerMinute: 100, monthlyEmails: 1000, customStorage: false, maxResources: FREE_RESOURCES },
        pro: { requestsPerMinute: 1000, monthlyEmails: 100_000, customStorage: true, maxResources: { webhooks: 100, chatappIntegrations: 50, inboxes: 10_000 } },
      },
      limitsEnforced: true,
    });
  });

  it('the (N+1)th email of a tenant with quota N is refused over SMTP with 452 4.2.2 and counted nowhere', async () => {
    const { tenant, client, inbox } = await tenantWithQuota('Quota', QUOTA);
    const accepted = [];
    for (let i = 0; i < QUOTA; i += 1) accepted.push(await sendMail(t.smtpPort, { from: 'a@example.com', to: inbox.address, subject: `n${i}`, text: 'x' }));
    expect((await client.get('/api/v1/usage')).json().emails).toEqual({ used: QUOTA, limit: QUOTA, remaining: 0 });

    await expect(sendMail(t.smtpPort, { from: 'a@example.com', to: inbox.address, subject: 'one too many', text: 'x' })).rejects.toMatchObject({
      responseCode: 452,
      response: expect.stringContaining('4.2.2'),
    });
    // Refused at RCPT TO, before DATA: nothing was stored or counted.
    expect((await client.get('/api/v1/emails')).json().totalItems).toBe(QUOTA);
    expect((await client.get(`/api/v1/inboxes/${inbox.id}/messages`)).json().totalItems).toBe(QUOTA);
    expect(await t.app.ctx.repos.usage.emailsIn(tenant.id, usageMonthOf(new Date()))).toBe(QUOTA);

    // The activity log says why, on an entry with no email id.
    const logs = (await client.get('/api/v1/logs?type=SMTP_RECEIVED&status=FAILED')).json();
    expect(logs.data).toHaveLength(1);
    expect(logs.data[0]).toMatchObject({
      emailId: null,
      type: 'SMTP_RECEIVED',
      status: 'FAILED',
      message: expect.stringContaining('quota'),
      metadata: { reason: 'EMAIL_QUOTA_EXCEEDED', recipient: inbox.address, used: QUOTA, limit: QUOTA, smtpReply: '452 4.2.2' },
    });

    // Deleting gives nothing back.
    expect((await client.delete(`/api/v1/emails/${accepted[0]?.id}`)).status).toBe(204);
    expect((await client.get('/api/v1/usage')).json().emails.used).toBe(QUOTA);
    await expect(sendMail(t.smtpPort, { from: 'a@example.com', to: inbox.address, text: 'still refused' })).rejects.toMatchObject({ responseCode: 452 });
  });

  it("only the tenant over quota is refused: in one session another tenant's recipient is still accepted", async () => {
    const full = await tenantWithQuota('Full', 0);
    const open = await tenantWithQuota('Open', null);
    const { client: smtp } = await RawSmtpClient.connect(t.smtpPort);
    try {
      expect((await smtp.command('EHLO client.example')).code).toBe(250);
      expect((await smtp.command('MAIL FROM:<a@example.com>')).code).toBe(250);
      const refused = await smtp.command(`RCPT TO:<${full.inbox.address}>`);
      expect(refused.code).toBe(452);
      expect(refused.text).toMatch(/^4\.2\.2 /);
      expect((await smtp.command(`RCPT TO:<${open.inbox.address}>`)).code).toBe(250);
      const reply = await smtp.data('From: a@example.com\r\nTo: x\r\nSubject: mixed\r\n\r\nbody\r\n');
      expect(reply.code).toBe(250);
    } finally {
      await smtp.quit();
    }
    expect((await open.client.get('/api/v1/usage')).json().emails.used).toBe(1);
    expect((await full.client.get('/api/v1/usage')).json().emails.used).toBe(0);
    expect((await full.client.get('/api/v1/emails')).json().totalItems).toBe(0);
  });

  it('an email to several inboxes of one tenant counts once', async () => {
    const { client, inbox } = await tenantWithQuota('Multi', null);
    const second = (await client.post('/api/v1/inboxes', {})).json<{ address: string }>();
    await sendMail(t.smtpPort, { from: 'a@example.com', to: [inbox.address, second.address], text: 'x' });
    expect((await client.get('/api/v1/usage')).json().emails.used).toBe(1);
  });
});
