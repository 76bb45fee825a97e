import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ActivityLogEntry } from '../../src/adapters/db/repositories/activity-log.repository.js';
import { TEST_DIALECTS, warnIfPostgresSkipped } from '../helpers/databases.js';
import { sendMail } from '../helpers/smtp-client.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

warnIfPostgresSkipped();

const PAGE_KEYS = ['currentPage', 'data', 'hasNextPage', 'perPage', 'total', 'totalItems', 'totalPages'];
const ENTRY_KEYS = ['createdAt', 'emailId', 'environmentId', 'id', 'message', 'metadata', 'status', 'type'];

describe.each(TEST_DIALECTS)('activity log API (%s)', (dialect) => {
  let t: TestApp;
  const emailIds: string[] = [];
  const WEBHOOK_ENTRIES = 60;

  const get = async (path: string) => {
    const response = await t.http.get(path);
    expect(response.status, response.text).toBe(200);
    return response.json<{ data: (ActivityLogEntry & Record<string, unknown>)[]; totalItems: number; perPage: number }>();
  };

  beforeAll(async () => {
    t = await startTestApp({ dialect });
    const address = (await t.http.post('/api/v1/inboxes', { prefix: 'logs' })).json().address;
    for (const subject of ['one', 'two']) {
      emailIds.push((await sendMail(t.smtpPort, { from: 'logger@example.com', to: address, subject, text: subject })).id);
    }
    // Webhook attempts are written by the webhooks capability; here they stand in as volume and as other statuses.
    const base = Date.now();
    await t.app.ctx.repos.logs.append(
      Array.from({ length: WEBHOOK_ENTRIES }, (_, i) => ({
        id: randomUUID(),
        tenantId: t.tenant.id,
        environmentId: t.tenant.environmentId,
        emailId: emailIds[0] ?? null,
        type: 'WEBHOOK' as const,
        status: i === 0 ? ('PENDING' as const) : ('FAILED' as const),
        message: `attempt ${i}`,
        metadata: { webhookId: 'w1', statusCode: 500, durationMs: 3, attemptsMade: i + 1 },
        createdAt: new Date(base + i).toISOString(),
      })),
    );
  });
  afterAll(() => t?.stop());

  it('lists newest first in the 2.1 envelope, 50 per page by default, up to 100', async () => {
    const response = await t.http.get('/api/v1/logs');
    const page = response.json();
    expect(Object.keys(page).sort()).toEqual(PAGE_KEYS);
    expect(page).toMatchObject({ currentPage: 1, perPage: 50, totalItems: WEBHOOK_ENTRIES + 4, totalPages: 2, hasNextPage: true });
    expect(page.data).toHaveLength(50);
    expect(Object.keys(page.data[0]).sort()).toEqual(ENTRY_KEYS);
    expect(page.data[0].message).toBe(`attempt ${WEBHOOK_ENTRIES - 1}`);
    expect((await get('/api/v1/logs?perPage=100')).data).toHaveLength(WEBHOOK_ENTRIES + 4);
    expect((await get('/api/v1/logs?page=2')).data).toHaveLength(WEBHOOK_ENTRIES + 4 - 50);
  });

  it('filters by type, status, emailId and environmentId', async () => {
    const received = await get('/api/v1/logs?type=SMTP_RECEIVED');
    expect(received.totalItems).toBe(2);
    expect(received.data.map((e) => e.emailId).sort()).toEqual([...emailIds].sort());
    expect(received.data[0]?.metadata).toMatchObject({ baseEmailId: received.data[0]?.emailId, from: 'logger@example.com' });
    const spam = await get('/api/v1/logs?type=SPAM_CHECK');
    expect(spam.data[0]?.metadata).toEqual(expect.objectContaining({ spfResult: expect.any(String), authSummary: expect.any(String) }));
    expect((await get('/api/v1/logs?status=PENDING')).totalItems).toBe(1);
    expect((await get('/api/v1/logs?status=FAILED&type=WEBHOOK')).totalItems).toBe(WEBHOOK_ENTRIES - 1);
    expect((await get('/api/v1/logs?status=SUCCESS')).totalItems).toBe(4);
    expect((await get(`/api/v1/logs?emailId=${emailIds[1]}`)).data.map((e) => e.type).sort()).toEqual(['SMTP_RECEIVED', 'SPAM_CHECK']);
    expect((await get(`/api/v1/logs?environmentId=${t.tenant.environmentId}`)).totalItems).toBe(WEBHOOK_ENTRIES + 4);
    expect((await get(`/api/v1/logs?environmentId=${randomUUID()}`)).totalItems).toBe(0);
  });

  it('rejects an unknown type or status, and perPage over 100, naming the field', async () => {
    for (const [query, field] of [
      ['type=BOUNCE', 'type'],
      ['status=DONE', 'status'],
      ['perPage=101', 'perPage'],
      ['page=-1', 'page'],
    ]) {
      const response = await t.http.get(`/api/v1/logs?${query}`);
      expect(response.status, query).toBe(400);
      expect(response.json()).toMatchObject({ statusCode: 400, code: 'VALIDATION_ERROR', field });
    }
  });

  it('lists the entries of one email, in the order they were written', async () => {
    const page = await get(`/api/v1/logs/email/${emailIds[1]}`);
    expect(page).toMatchObject({ perPage: 50, totalItems: 2 });
    expect(page.data.map((e) => e.type)).toEqual(['SPAM_CHECK', 'SMTP_RECEIVED']);
    const busy = await get(`/api/v1/logs/email/${emailIds[0]}?perPage=10&page=2`);
    expect(busy).toMatchObject({ perPage: 10, totalItems: WEBHOOK_ENTRIES + 2, currentPage: 2 });
    expect((await get(`/api/v1/logs/email/${randomUUID()}`)).data).toEqual([]);
    expect((await t.http.get(`/api/v1/logs/email/${emailIds[0]}?perPage=101`)).json()).toMatchObject({ statusCode: 400, field: 'perPage' });
  });

  it('never shows another tenant’s entries', async () => {
    const other = t.client((await t.createTenant('Other')).apiKey);
    expect((await other.get('/api/v1/logs')).json().totalItems).toBe(0);
    expect((await other.get(`/api/v1/logs/email/${emailIds[0]}`)).json().totalItems).toBe(0);
    expect((await other.get(`/api/v1/logs?emailId=${emailIds[0]}`)).json().totalItems).toBe(0);
  });
});
