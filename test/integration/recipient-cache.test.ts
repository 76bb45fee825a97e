import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { TEST_DIALECTS, createPostgresDatabase, warnIfPostgresSkipped } from '../helpers/databases.js';
import { sendMail } from '../helpers/smtp-client.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

warnIfPostgresSkipped();

/** app.ts RECIPIENT_CACHE_MS: how long a node reuses what it read about a served address (D35). */
const REMEMBERED_MS = 2_000;

const refused = { responseCode: 550 };

describe.each(TEST_DIALECTS)('RCPT TO remembers served addresses, D35 (%s)', (dialect) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ dialect });
  });
  afterAll(() => t?.stop());

  const createInbox = async (body: Record<string, unknown> = {}) => (await t.http.post('/api/v1/inboxes', body)).json<{ id: string; address: string; expiresAt: string | null }>();

  it('reads a served address once while it is remembered, and again once it is older', async () => {
    const inbox = await createInbox();
    const reads = vi.spyOn(t.app.ctx.repos.inboxes, 'getByAddress');
    try {
      const recipients = t.app.ctx.services.recipients;
      const now = Date.now();
      expect((await recipients.resolve(inbox.address, now)).inboxId).toBe(inbox.id);
      expect((await recipients.resolve(inbox.address.toUpperCase(), now + REMEMBERED_MS - 1)).inboxId).toBe(inbox.id);
      expect(reads).toHaveBeenCalledTimes(1);
      await recipients.resolve(inbox.address, now + REMEMBERED_MS);
      expect(reads).toHaveBeenCalledTimes(2);
    } finally {
      reads.mockRestore();
    }
  });

  it('checks a remembered inbox’s expiry at each use', async () => {
    const inbox = await createInbox({ ttlSeconds: 60 });
    const expiresAt = Date.parse(inbox.expiresAt as string);
    const recipients = t.app.ctx.services.recipients;
    await recipients.resolve(inbox.address, expiresAt - 1);
    await expect(recipients.resolve(inbox.address, expiresAt)).rejects.toMatchObject({ code: 'RECIPIENT_UNKNOWN' });
  });

  it('never remembers an unknown address: an inbox created right after a refusal receives at once', async () => {
    const prefix = `late-${Date.now().toString(36)}`;
    const domain = (await createInbox()).address.split('@')[1] as string;
    await expect(sendMail(t.smtpPort, { from: 'a@example.com', to: `${prefix}@${domain}`, text: 'too early' })).rejects.toMatchObject(refused);
    const inbox = await createInbox({ prefix });
    expect(inbox.address).toBe(`${prefix}@${domain}`);
    await sendMail(t.smtpPort, { from: 'a@example.com', to: inbox.address, text: 'on time' });
  });

  it('a change made on this node applies to the next RCPT TO: deactivate, reactivate, remove an alias, delete', async () => {
    const inbox = await createInbox({ aliases: ['cached-alias'] });
    const alias = `cached-alias@${inbox.address.split('@')[1]}`;
    await sendMail(t.smtpPort, { from: 'a@example.com', to: [inbox.address, alias], text: 'both served' });

    expect((await t.http.patch(`/api/v1/inboxes/${inbox.id}`, { body: { active: false } })).status).toBe(200);
    await expect(sendMail(t.smtpPort, { from: 'a@example.com', to: inbox.address, text: 'inactive' })).rejects.toMatchObject(refused);
    expect((await t.http.patch(`/api/v1/inboxes/${inbox.id}`, { body: { active: true } })).status).toBe(200);
    await sendMail(t.smtpPort, { from: 'a@example.com', to: inbox.address, text: 'active again' });

    expect((await t.http.patch(`/api/v1/inboxes/${inbox.id}`, { body: { aliases: [] } })).status).toBe(200);
    await expect(sendMail(t.smtpPort, { from: 'a@example.com', to: alias, text: 'alias gone' })).rejects.toMatchObject(refused);

    expect((await t.http.delete(`/api/v1/inboxes/${inbox.id}`)).status).toBe(204);
    await expect(sendMail(t.smtpPort, { from: 'a@example.com', to: inbox.address, text: 'deleted' })).rejects.toMatchObject(refused);
  });
});

const runnable = TEST_DIALECTS.includes('postgres');

describe.runIf(runnable)('RCPT TO on two nodes sharing PostgreSQL, D35', () => {
  let database: Awaited<ReturnType<typeof createPostgresDatabase>>;
  let a: TestApp;
  let b: TestApp;

  beforeAll(async () => {
    database = await createPostgresDatabase();
    a = await startTestApp({ dialect: 'postgres', databaseUrl: database.url });
    b = await startTestApp({ dialect: 'postgres', databaseUrl: database.url });
  });
  afterAll(async () => {
    await a?.stop();
    await b?.stop();
    await database?.drop();
  });

  it('an inbox created on one node receives on the other at once; one deleted there is refused within the remembered time', async () => {
    const inbox = (await a.http.post('/api/v1/inboxes', {})).json<{ id: string; address: string }>();
    await sendMail(b.smtpPort, { from: 'a@example.com', to: inbox.address, text: 'via b' });

    expect((await a.http.delete(`/api/v1/inboxes/${inbox.id}`)).status).toBe(204);
    await expect(sendMail(a.smtpPort, { from: 'a@example.com', to: inbox.address, text: 'via a' })).rejects.toMatchObject(refused);
    await new Promise((resolve) => setTimeout(resolve, REMEMBERED_MS));
    await expect(sendMail(b.smtpPort, { from: 'a@example.com', to: inbox.address, text: 'via b, later' })).rejects.toMatchObject(refused);
  });
});
