import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DIALECTS, warnIfPostgresSkipped } from '../helpers/databases.js';
import { sendMail } from '../helpers/smtp-client.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

warnIfPostgresSkipped();

describe.each(TEST_DIALECTS)('GET /emails?q= searches the whole mail (%s)', (dialect) => {
  let t: TestApp;
  let other: { apiKey: string };

  const subjects = async (q: string, client = t.http) => {
    const response = await client.get(`/api/v1/emails?perPage=100&q=${encodeURIComponent(q)}`);
    expect(response.status, `${q}: ${response.text}`).toBe(200);
    const page = response.json<{ data: { subject: string }[]; totalItems: number }>();
    expect(page.totalItems).toBe(page.data.length);
    return page.data.map((e) => e.subject).sort();
  };

  beforeAll(async () => {
    t = await startTestApp({ dialect });
    const { address } = (await t.http.post('/api/v1/inboxes', { prefix: 'search' })).json<{ address: string }>();
    await sendMail(t.smtpPort, { from: 'Acme News <news@acme.example>', to: address, subject: 'Weekly digest', text: 'Your verification code is 482913. Welcome aboard!' });
    await sendMail(t.smtpPort, { from: 'billing@shop.example', to: address, subject: 'Invoice ready', text: 'The invoice for order 77 is attached.', attachments: [{ filename: 'invoice.txt', content: 'total 10' }] });
    await sendMail(t.smtpPort, { from: 'alerts@acme.example', to: address, subject: 'Code review requested', text: 'Please review the welcome page.' });
    const read = (await t.http.get('/api/v1/emails?subject=Invoice')).json<{ data: { id: string }[] }>().data[0]?.id;
    await t.http.patch(`/api/v1/emails/${read}/read`);
    other = await t.createTenant('Other tenant');
    const otherInbox = (await t.client(other.apiKey).post('/api/v1/inboxes', { prefix: 'theirs' })).json<{ address: string }>();
    await sendMail(t.smtpPort, { from: 'news@acme.example', to: otherInbox.address, subject: 'Their digest', text: 'Their code is 482913.' });
  });
  afterAll(() => t?.stop());

  it('finds a word or a code of the body, in this tenant only', async () => {
    expect(await subjects('482913')).toEqual(['Weekly digest']);
    expect(await subjects('WELCOME')).toEqual(['Code review requested', 'Weekly digest']);
    expect(await subjects('482913', t.client(other.apiKey))).toEqual(['Their digest']);
  });

  it('narrows words to the sender, recipients or subject', async () => {
    expect(await subjects('from:acme')).toEqual(['Code review requested', 'Weekly digest']);
    expect(await subjects('from:news@acme.example')).toEqual(['Weekly digest']);
    expect(await subjects('from:"Acme News"')).toEqual([]);
    expect(await subjects('subject:code')).toEqual(['Code review requested']);
    expect(await subjects('to:search')).toHaveLength(3);
    expect(await subjects('to:acme')).toEqual([]);
  });

  it('matches phrases, excludes terms and applies the filters', async () => {
    expect(await subjects('"verification code"')).toEqual(['Weekly digest']);
    expect(await subjects('"code verification"')).toEqual([]);
    expect(await subjects('acme -welcome')).toEqual([]);
    expect(await subjects('-digest')).toEqual(['Code review requested', 'Invoice ready']);
    expect(await subjects('has:attachment')).toEqual(['Invoice ready']);
    expect(await subjects('is:read')).toEqual(['Invoice ready']);
    expect(await subjects('is:unread welcome')).toEqual(['Code review requested', 'Weekly digest']);
    expect(await subjects('after:2000-01-01 before:2999-01-01 invoice')).toEqual(['Invoice ready']);
    expect(await subjects('before:2000-01-01')).toEqual([]);
  });

  it('combines with the list filters', async () => {
    const response = await t.http.get(`/api/v1/emails?q=welcome&filter.read=false&subject=digest`);
    expect(response.json<{ data: { subject: string }[] }>().data.map((e) => e.subject)).toEqual(['Weekly digest']);
  });

  it('indexes a 5 MB body and a 3,000-character word without failing the mail', async () => {
    const { address } = (await t.http.post('/api/v1/inboxes', { prefix: 'huge' })).json<{ address: string }>();
    const html = `<p>needleword ${'x'.repeat(3000)}</p>${'<p>lorem ipsum dolor sit amet</p>'.repeat(160_000)}`;
    await sendMail(t.smtpPort, { from: 'big@news.example', to: address, subject: 'S'.repeat(2000), html });
    expect(await subjects('needleword')).toEqual(['S'.repeat(2000)]);
    await t.http.post('/api/v1/emails/delete', { q: 'needleword' });
  });

  it('indexes the first 100,000 characters of the body, counted as characters, not bytes', async () => {
    const { address } = (await t.http.post('/api/v1/inboxes', { prefix: 'cutoff' })).json<{ address: string }>();
    // 120,000 bytes but 80,000 characters before the first word, 110,011 before the second.
    const text = `${'я '.repeat(40_000)}insidecutoff ${'b '.repeat(15_000)}outsidecutoff`;
    await sendMail(t.smtpPort, { from: 'long@news.example', to: address, subject: 'Long body', text });
    expect(await subjects('insidecutoff')).toEqual(['Long body']);
    expect(await subjects('outsidecutoff')).toEqual([]);
    await t.http.post('/api/v1/emails/delete', { q: 'insidecutoff' });
  });

  it('answers 400 with a message for a query it cannot run', async () => {
    for (const [q, message] of [
      ['x'.repeat(10_000), /1000 characters/],
      ['subject:"no end', /quote/],
      ['is:starred', /is: takes read or unread/],
      ['before:tomorrow', /YYYY-MM-DD/],
    ] as const) {
      const response = await t.http.get(`/api/v1/emails?q=${encodeURIComponent(q)}`);
      expect(response.status, q.slice(0, 40)).toBe(400);
      expect(response.json()).toMatchObject({ statusCode: 400, field: 'q' });
      expect(response.json<{ message: string }>().message).toMatch(message);
    }
  });
});
