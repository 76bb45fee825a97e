import { request as httpsRequest } from 'node:https';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DIALECTS, warnIfPostgresSkipped } from '../helpers/databases.js';
import type { HttpResponse } from '../helpers/http-client.js';
import { sendMail } from '../helpers/smtp-client.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

warnIfPostgresSkipped();

describe.each(TEST_DIALECTS)('GET /inboxes/:id/messages/wait (%s)', (dialect) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ dialect });
  });
  afterAll(() => t?.stop());

  const createInbox = async () => (await t.http.post('/api/v1/inboxes', {})).json() as { id: string; address: string };
  const waiting = () => t.app.ctx.services.inboxMessages.waiting();

  /**
   * Registration happens inside the server with no event to await, so this checks the waiter count
   * each turn of the event loop (a few ms at most).
   */
  async function untilWaiting(count: number): Promise<void> {
    const deadline = Date.now() + 5_000;
    while (waiting() !== count) {
      if (Date.now() > deadline) throw new Error(`expected ${count} waiters, have ${waiting()}`);
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
  }

  /** Starts a long poll and reports when its answer arrived. */
  function startWait(inboxId: string, query = ''): Promise<{ response: HttpResponse; at: number }> {
    return t.http.get(`/api/v1/inboxes/${inboxId}/messages/wait?timeout=10000${query}`).then((response) => ({ response, at: performance.now() }));
  }

  it('a waiter started before the send answers within 100 ms of the SMTP 250', async () => {
    const inbox = await createInbox();
    const pending = startWait(inbox.id);
    await untilWaiting(1);
    const sent = await sendMail(t.smtpPort, { from: 'otp@service.test', to: inbox.address, subject: 'Your code', text: 'Your verification code is 602114.' });
    const accepted = performance.now();
    const { response, at } = await pending;
    expect(response.status).toBe(200);
    expect(response.json()).toMatchObject({ inboxId: inbox.id, emailId: sent.id, subject: 'Your code', extracted: { otp: '602114' } });
    expect(at - accepted).toBeLessThan(100);
    expect(waiting()).toBe(0);
  });

  it('returns a matching message that arrived before the call at once (the earliest one)', async () => {
    const inbox = await createInbox();
    await sendMail(t.smtpPort, { from: 'a@service.test', to: inbox.address, subject: 'first', text: 'x' });
    await sendMail(t.smtpPort, { from: 'a@service.test', to: inbox.address, subject: 'second', text: 'x' });
    const started = performance.now();
    const response = await t.http.get(`/api/v1/inboxes/${inbox.id}/messages/wait`);
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(response.json().subject).toBe('first');
  });

  it('filters by subject and sender (case-insensitive substrings), stored or arriving', async () => {
    const inbox = await createInbox();
    await sendMail(t.smtpPort, { from: 'news@shop.test', to: inbox.address, subject: 'Weekly deals', text: 'x' });
    const bySubject = startWait(inbox.id, '&subject=RESET');
    const byFrom = startWait(inbox.id, '&from=SECURITY@bank');
    await untilWaiting(2);
    await sendMail(t.smtpPort, { from: 'security@bank.test', to: inbox.address, subject: 'New sign-in', text: 'x' });
    expect((await byFrom).response.json()).toMatchObject({ from: 'security@bank.test', subject: 'New sign-in' });
    expect(waiting()).toBe(1);
    await sendMail(t.smtpPort, { from: 'noreply@app.test', to: inbox.address, subject: 'Password reset requested', text: 'x' });
    expect((await bySubject).response.json().subject).toBe('Password reset requested');
    expect((await t.http.get(`/api/v1/inboxes/${inbox.id}/messages/wait?subject=weekly&from=shop`)).json().subject).toBe('Weekly deals');
  });

  it('afterId: only messages stored after that one; it waits when there is none yet', async () => {
    const inbox = await createInbox();
    await sendMail(t.smtpPort, { from: 'a@service.test', to: inbox.address, subject: 'm1', text: 'x' });
    await sendMail(t.smtpPort, { from: 'a@service.test', to: inbox.address, subject: 'm2', text: 'x' });
    const [m2, m1] = (await t.http.get(`/api/v1/inboxes/${inbox.id}/messages`)).json().data;
    expect((await t.http.get(`/api/v1/inboxes/${inbox.id}/messages/wait?afterId=${m1.id}`)).json().id).toBe(m2.id);
    const next = startWait(inbox.id, `&afterId=${m2.id}`);
    await untilWaiting(1);
    await sendMail(t.smtpPort, { from: 'a@service.test', to: inbox.address, subject: 'm3', text: 'x' });
    expect((await next).response.json().subject).toBe('m3');
  });

  it('answers 204 with no body when the timeout passes first', async () => {
    const inbox = await createInbox();
    const started = performance.now();
    const response = await t.http.get(`/api/v1/inboxes/${inbox.id}/messages/wait?timeout=300`);
    expect(response.status).toBe(204);
    expect(response.text).toBe('');
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
    expect(waiting()).toBe(0);
  });

  it.each([
    ['timeout above 60000', 'timeout=60001', 'timeout'],
    ['negative timeout', 'timeout=-1', 'timeout'],
    ['malformed afterId', 'afterId=not-a-uuid', 'afterId'],
    ['afterId of no message of this inbox', 'afterId=00000000-0000-4000-8000-000000000000', 'afterId'],
  ])('refuses %s with 400 naming the parameter', async (_label, query, field) => {
    const inbox = await createInbox();
    const response = await t.http.get(`/api/v1/inboxes/${inbox.id}/messages/wait?${query}`);
    expect(response.status).toBe(400);
    expect(response.json().field).toBe(field);
  });

  it('frees the waiter when the client disconnects', async () => {
    const inbox = await createInbox();
    const ca = await readFile(join(t.dataDir, 'tls', 'self-signed.crt'));
    const request = httpsRequest(`${t.http.baseUrl}/api/v1/inboxes/${inbox.id}/messages/wait?timeout=60000`, { ca, headers: { 'x-api-key': t.tenant.apiKey } });
    request.on('error', () => undefined);
    request.end();
    await untilWaiting(1);
    request.destroy();
    await untilWaiting(0);
  });
});
