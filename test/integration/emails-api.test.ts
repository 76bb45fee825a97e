import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateApiKey } from '../../src/core/api-key.js';
import { TEST_DIALECTS, warnIfPostgresSkipped } from '../helpers/databases.js';
import { sendMail } from '../helpers/smtp-client.js';
import { filesUnder, liveBlobs } from '../helpers/stored-state.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

warnIfPostgresSkipped();

const ERROR_KEYS = ['code', 'error', 'message', 'statusCode'];
const NO_SUCH_ID = '00000000-0000-4000-8000-000000000000';
const PAGE_KEYS = ['currentPage', 'data', 'hasNextPage', 'perPage', 'total', 'totalItems', 'totalPages'];

interface Listed {
  id: string;
  from: string;
  subject: string;
  createdAt: string;
  read: boolean;
}

describe.each(TEST_DIALECTS)('emails API over HTTPS (%s)', (dialect) => {
  let t: TestApp;
  let address: string;
  let inboxId: string;
  /** Sent in this order: createdAt ascending. */
  const sent: { id: string; from: string; subject: string }[] = [];

  const list = async (query: string) => {
    const response = await t.http.get(`/api/v1/emails?${query}`);
    expect(response.status, response.text).toBe(200);
    return response.json<{ data: Listed[]; totalItems: number }>();
  };
  /** A client with a tenant-level key bound to an inbox or an environment, inserted as the key routes would. */
  const scopedClient = async (scope: { inboxId?: string; environmentId?: string }) => {
    const generated = generateApiKey();
    await t.app.ctx.repos.apiKeys.insert({
      id: randomUUID(),
      tenantId: t.tenant.id,
      name: 'scoped key',
      prefix: generated.prefix,
      keyHash: generated.hash,
      active: true,
      environmentId: scope.environmentId ?? null,
      inboxId: scope.inboxId ?? null,
      scopes: ['api'],
      lastUsedAt: null,
      expiresAt: null,
      createdAt: new Date().toISOString(),
    });
    return t.client(generated.key);
  };
  const subjectsOf = async (query: string) => (await list(query)).data.map((e) => e.subject);
  const expect400 = async (query: string, field: string) => {
    const response = await t.http.get(`/api/v1/emails?${query}`);
    expect(response.status, query).toBe(400);
    const body = response.json();
    expect(Object.keys(body).sort()).toEqual([...ERROR_KEYS, 'field'].sort());
    expect(body).toMatchObject({ statusCode: 400, error: 'Bad Request', code: 'VALIDATION_ERROR', field });
  };

  beforeAll(async () => {
    t = await startTestApp({ dialect });
    const inbox = (await t.http.post('/api/v1/inboxes', { prefix: 'listing' })).json();
    address = inbox.address;
    inboxId = inbox.id;
    const messages = [
      { from: 'Alice <alice@example.com>', subject: 'Beta 50% off' },
      { from: 'bob@example.org', subject: 'alpha 500 off' },
      { from: 'Carol <CAROL@Example.net>', subject: 'Gamma a_b' },
      { from: 'dave@example.com', subject: 'delta axb' },
    ];
    for (const message of messages) {
      const result = await sendMail(t.smtpPort, { ...message, to: address, text: `Body of ${message.subject}` });
      sent.push({ id: result.id, from: message.from, subject: message.subject });
    }
  });
  afterAll(() => t?.stop());

  it('lists in the 2.1 envelope, newest first, 20 per page by default', async () => {
    const response = await t.http.get('/api/v1/emails');
    const body = response.json();
    // Beyond the spec's envelope: the cursor, and whether a search's count stopped early (docs/search.md).
    expect(Object.keys(body).sort()).toEqual([...PAGE_KEYS, 'nextCursor', 'totalItemsIsLowerBound'].sort());
    expect(body).toMatchObject({ currentPage: 1, perPage: 20, totalItems: 4, totalPages: 1, hasNextPage: false, totalItemsIsLowerBound: false });
    expect(body.data.map((e: Listed) => e.id)).toEqual(sent.map((s) => s.id).reverse());
  });

  it('paginates with page and perPage', async () => {
    const first = await t.http.get('/api/v1/emails?perPage=3');
    expect(first.json()).toMatchObject({ currentPage: 1, perPage: 3, totalItems: 4, totalPages: 2, hasNextPage: true });
    const second = (await t.http.get('/api/v1/emails?perPage=3&page=2')).json();
    expect(second).toMatchObject({ currentPage: 2, perPage: 3, totalPages: 2, hasNextPage: false });
    expect(second.data.map((e: Listed) => e.id)).toEqual([sent[0]?.id]);
    expect((await list('perPage=100')).data).toHaveLength(4);
    expect((await list('page=9')).data).toEqual([]);
  });

  it('rejects bad query values with 400 naming the field', async () => {
    await expect400('perPage=101', 'perPage');
    await expect400('perPage=0', 'perPage');
    await expect400('page=0', 'page');
    await expect400('page=abc', 'page');
    await expect400('page=100000000000000000', 'page');
    await expect400('filter.read=maybe', 'filter.read');
    await expect400('sort.field=size', 'sort.field');
    await expect400('sort.order=up', 'sort.order');
    await expect400('sort[field]=size', 'sort[field]');
    await expect400('filter.createdAfter=yesterday', 'filter.createdAfter');
    await expect400('filter.createdBefore=2026-13-45', 'filter.createdBefore');
    await expect400(`subject=${'x'.repeat(501)}`, 'subject');
    const response = await t.http.get('/api/v1/emails?sort.field=size');
    expect(response.json().message).toBe('sort.field must be one of createdAt, from, subject');
  });

  it('sorts by createdAt, from and subject (case-insensitively) in both orders, with either spelling', async () => {
    const ids = sent.map((s) => s.id);
    expect((await list('sort.field=createdAt&sort.order=asc')).data.map((e) => e.id)).toEqual(ids);
    expect((await list('sort[field]=createdAt&sort[order]=asc')).data.map((e) => e.id)).toEqual(ids);
    expect((await list('sort.order=desc')).data.map((e) => e.id)).toEqual([...ids].reverse());
    expect((await list('sort%5Bfield%5D=createdAt&sort%5Border%5D=asc')).data.map((e) => e.id)).toEqual(ids);
    expect((await list('sort.field=createdAt&sort[order]=asc')).data.map((e) => e.id)).toEqual(ids);
    const fromAsc = (await list('sort.field=from&sort.order=asc')).data.map((e) => e.from);
    expect(fromAsc).toEqual(['alice@example.com', 'bob@example.org', 'CAROL@example.net', 'dave@example.com']);
    expect((await list('sort[field]=from')).data.map((e) => e.from)).toEqual([...fromAsc].reverse());
    expect(await subjectsOf('sort.field=subject&sort.order=asc')).toEqual(['alpha 500 off', 'Beta 50% off', 'delta axb', 'Gamma a_b']);
    expect(await subjectsOf('sort.field=subject&sort.order=desc')).toEqual(['Gamma a_b', 'delta axb', 'Beta 50% off', 'alpha 500 off']);
  });

  it('filters from, to and subject case-insensitively, with % and _ taken literally', async () => {
    expect(await subjectsOf('from=ALICE')).toEqual(['Beta 50% off']);
    expect(await subjectsOf('filter.from=carol@example')).toEqual(['Gamma a_b']);
    expect(await subjectsOf('subject=50%25')).toEqual(['Beta 50% off']);
    expect(await subjectsOf('filter.subject=a_b')).toEqual(['Gamma a_b']);
    expect(await subjectsOf('subject=%25')).toEqual(['Beta 50% off']);
    expect(await subjectsOf('subject=GAMMA')).toEqual(['Gamma a_b']);
    expect((await list(`to=${address.toUpperCase()}`)).totalItems).toBe(4);
    expect((await list('filter.to=someone-else@')).totalItems).toBe(0);
    expect(await subjectsOf('from=example.com&sort.field=subject&sort.order=asc')).toEqual(['Beta 50% off', 'delta axb']);
  });

  it('filters by read state and environment', async () => {
    const [first] = sent;
    await t.http.patch(`/api/v1/emails/${first?.id}/read`);
    expect((await list('filter.read=true')).data.map((e) => e.id)).toEqual([first?.id]);
    expect((await list('filter.read=false')).totalItems).toBe(3);
    await t.http.patch(`/api/v1/emails/${first?.id}/unread`);
    expect((await list('filter.read=true')).totalItems).toBe(0);
    expect((await list(`filter.environmentId=${t.tenant.environmentId}`)).totalItems).toBe(4);
    expect((await list('filter.environmentId=no-such-environment')).totalItems).toBe(0);
  });

  it('filters by createdAfter and createdBefore, as date-times and as whole days', async () => {
    const all = (await list('sort.order=asc')).data;
    const [, second, third] = all;
    const ids = (page: { data: Listed[] }) => page.data.map((e) => e.id).sort();
    expect(ids(await list(`filter.createdAfter=${second?.createdAt}`))).toEqual(all.slice(1).map((e) => e.id).sort());
    expect(ids(await list(`filter.createdBefore=${second?.createdAt}`))).toEqual(all.slice(0, 2).map((e) => e.id).sort());
    expect(ids(await list(`filter.createdAfter=${second?.createdAt}&filter.createdBefore=${third?.createdAt}`))).toEqual(
      all.slice(1, 3).map((e) => e.id).sort(),
    );
    const offset = encodeURIComponent(new Date(Date.parse(second?.createdAt ?? '')).toISOString().replace('Z', '+00:00'));
    expect((await list(`filter.createdAfter=${offset}`)).totalItems).toBe(3);
    const today = new Date().toISOString().slice(0, 10);
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    expect((await list(`filter.createdAfter=${today}&filter.createdBefore=${today}`)).totalItems).toBe(4);
    expect((await list(`filter.createdBefore=${yesterday}`)).totalItems).toBe(0);
    expect((await list(`filter.createdAfter=${tomorrow}`)).totalItems).toBe(0);
  });

  it('gets one email, optionally marking it read', async () => {
    const id = sent[1]?.id;
    const plain = await t.http.get(`/api/v1/emails/${id}`);
    expect(plain.json()).toMatchObject({ id, read: false, from: 'bob@example.org', to: [address], cc: [], bcc: [], snippet: 'Body of alpha 500 off' });
    expect(Object.keys(plain.json())).not.toContain('tenantId');
    const marked = await t.http.get(`/api/v1/emails/${id}?markAsRead=true`);
    expect(marked.json()).toMatchObject({ id, read: true });
    expect((await t.http.get(`/api/v1/emails/${id}?markAsRead=false`)).json().read).toBe(true);
    expect((await t.http.get(`/api/v1/emails/${id}?markAsRead=perhaps`)).json()).toMatchObject({ statusCode: 400, field: 'markAsRead' });
  });

  it('marks read and unread, returning exactly id, read and updatedAt', async () => {
    const id = sent[2]?.id;
    const read = await t.http.patch(`/api/v1/emails/${id}/read`);
    expect(read.status).toBe(200);
    expect(Object.keys(read.json()).sort()).toEqual(['id', 'read', 'updatedAt']);
    expect(read.json()).toMatchObject({ id, read: true });
    expect(Number.isNaN(Date.parse(read.json().updatedAt))).toBe(false);
    const email = (await t.http.get(`/api/v1/emails/${id}`)).json();
    expect(email).toMatchObject({ read: true, updatedAt: read.json().updatedAt });
    const unread = await t.http.patch(`/api/v1/emails/${id}/unread`);
    expect(unread.json()).toEqual({ id, read: false, updatedAt: expect.any(String) });
  });

  it('serves html, text and headers as content', async () => {
    const result = await sendMail(t.smtpPort, {
      from: 'news@example.com',
      to: address,
      subject: 'Content check',
      text: 'Plain body',
      html: '<p>HTML <i>body</i></p>',
      headers: { 'X-Campaign': 'spring' },
    });
    const content = await t.http.get(`/api/v1/emails/${result.id}/content`);
    expect(content.status).toBe(200);
    const body = content.json();
    expect(body).toMatchObject({ id: result.id, html: expect.stringContaining('<i>body</i>'), text: expect.stringContaining('Plain body') });
    expect(body.headers).toMatchObject({ subject: 'Content check', 'x-campaign': 'spring' });

    const textOnly = await sendMail(t.smtpPort, { from: 'plain@example.com', to: address, subject: 'Plain only', text: 'Just text' });
    expect((await t.http.get(`/api/v1/emails/${textOnly.id}/content`)).json()).toMatchObject({ html: null, text: expect.stringContaining('Just text') });
  });

  it('downloads the raw EML and attachments with the right headers', async () => {
    const pdf = Buffer.from('%PDF-1.4 pretend');
    const result = await sendMail(t.smtpPort, {
      from: 'files@example.com',
      to: address,
      subject: 'Files',
      text: 'see attached',
      attachments: [
        { filename: "Résumé (final)'s.pdf", content: pdf, contentType: 'application/pdf' },
        { filename: 'data.csv', content: 'a,b\n1,2\n', contentType: 'text/csv' },
      ],
    });
    const email = (await t.http.get(`/api/v1/emails/${result.id}`)).json();
    expect(email.attachments.map((a: { filename: string }) => a.filename)).toEqual(["Résumé (final)'s.pdf", 'data.csv']);

    const eml = await t.http.get(`/api/v1/emails/${result.id}/eml`);
    expect(eml.status).toBe(200);
    expect(eml.headers['content-type']).toBe('message/rfc822');
    expect(eml.text).toContain('Subject: Files');
    expect(Number(eml.headers['content-length'])).toBe(eml.body.length);

    const file = await t.http.get(`/api/v1/emails/${result.id}/attachments/${email.attachments[0].id}`);
    expect(file.status).toBe(200);
    expect(file.headers['content-type']).toBe('application/pdf');
    expect(file.body.equals(pdf)).toBe(true);
    const disposition = String(file.headers['content-disposition']);
    expect(disposition).toMatch(/^attachment; filename="[\x20-\x7e]+"; filename\*=UTF-8''/);
    const encoded = /filename\*=UTF-8''(.+)$/.exec(disposition)?.[1] ?? '';
    expect(encoded).toMatch(/^[A-Za-z0-9!#$&+\-.^_`|~%]+$/);
    expect(decodeURIComponent(encoded)).toBe("Résumé (final)'s.pdf");

    const csv = await t.http.get(`/api/v1/emails/${result.id}/attachments/${email.attachments[1].id}`);
    expect(csv.headers['content-type']).toMatch(/^text\/csv/);
    expect(csv.text).toBe('a,b\n1,2\n');
    const missing = await t.http.get(`/api/v1/emails/${result.id}/attachments/nope`);
    expect(missing.json()).toMatchObject({ statusCode: 404, code: 'ATTACHMENT_NOT_FOUND' });
  });

  it('deletes the row, the EML and the attachment files; logs stay with the email id', async () => {
    const result = await sendMail(t.smtpPort, {
      from: 'gone@example.com',
      to: address,
      subject: 'Delete me',
      text: 'bye',
      attachments: [{ filename: 'x.txt', content: 'x' }],
    });
    const attachmentId = (await t.http.get(`/api/v1/emails/${result.id}`)).json().attachments[0].id;
    const blobRoot = join(t.dataDir, 'blobs');
    const stem = `emails/${t.tenant.id}/${new Date().toISOString().slice(0, 10)}/${result.id}`;
    const blobsOfEmail = async () => (await liveBlobs(blobRoot)).filter((key) => key.startsWith(stem)).map((key) => key.slice(0, key.indexOf('#')));
    expect((await blobsOfEmail()).sort()).toEqual([`${stem}.attachment.${attachmentId}`, `${stem}.eml`]);
    const segments = (await filesUnder(blobRoot)).filter((path) => path.endsWith('.seg'));
    const bytesBefore = Buffer.concat(await Promise.all(segments.map((path) => readFile(path))));
    expect(bytesBefore.includes('Delete me')).toBe(true);

    const deleted = await t.http.delete(`/api/v1/emails/${result.id}`);
    expect(deleted.status).toBe(204);
    expect(deleted.body.length).toBe(0);
    expect(await blobsOfEmail()).toEqual([]);
    // Deleted mail leaves no bytes on disk: its records are zeroed in place.
    const bytesAfter = Buffer.concat(await Promise.all(segments.map((path) => readFile(path))));
    expect(bytesAfter.includes('Delete me')).toBe(false);
    expect(bytesAfter.includes(result.id)).toBe(false);
    expect(await t.app.ctx.repos.emails.get(t.tenant.id, result.id)).toBeUndefined();
    for (const path of ['', '/content', '/eml', `/attachments/${attachmentId}`]) {
      expect((await t.http.get(`/api/v1/emails/${result.id}${path}`)).status, path).toBe(404);
    }
    expect((await t.http.delete(`/api/v1/emails/${result.id}`)).status).toBe(404);

    const logs = (await t.http.get(`/api/v1/logs/email/${result.id}`)).json();
    expect(logs.data.map((e: { type: string }) => e.type).sort()).toEqual(['SMTP_RECEIVED', 'SPAM_CHECK']);
    expect(logs.data.every((e: { emailId: string }) => e.emailId === result.id)).toBe(true);
  });

  it('answers 404 for unknown ids and for another tenant on every route', async () => {
    const other = t.client((await t.createTenant('Intruder')).apiKey);
    const id = sent[3]?.id as string;
    const attachmentEmail = (await list('subject=Files')).data[0]?.id;
    const attachmentId = (await t.http.get(`/api/v1/emails/${attachmentEmail}`)).json().attachments[0].id;
    const routes: [string, string][] = [
      ['GET', `/api/v1/emails/${id}`],
      ['GET', `/api/v1/emails/${id}?markAsRead=true`],
      ['GET', `/api/v1/emails/${id}/content`],
      ['PATCH', `/api/v1/emails/${id}/read`],
      ['PATCH', `/api/v1/emails/${id}/unread`],
      ['GET', `/api/v1/emails/${id}/eml`],
      ['DELETE', `/api/v1/emails/${id}`],
      ['GET', `/api/v1/emails/${attachmentEmail}/attachments/${attachmentId}`],
    ];
    for (const [method, path] of routes) {
      const response = await other.request(method, path);
      expect(response.status, `${method} ${path}`).toBe(404);
      expect(Object.keys(response.json()).sort()).toEqual(ERROR_KEYS);
      expect(response.text).not.toContain(t.tenant.id);
      const unknownPath = path.replace(id, NO_SUCH_ID).replace(attachmentEmail ?? '', NO_SUCH_ID);
      expect((await t.http.request(method, unknownPath)).status, `unknown ${method} ${path}`).toBe(404);
    }
    expect((await other.get('/api/v1/emails')).json().totalItems).toBe(0);
    expect((await t.http.get(`/api/v1/emails/${id}`)).json().read).toBe(false);
  });

  it('lets an inbox-scoped key read only its inbox’s emails (docs/decisions.md D7)', async () => {
    const otherAddress = (await t.http.post('/api/v1/inboxes', { prefix: 'elsewhere' })).json().address;
    const elsewhere = await sendMail(t.smtpPort, { from: 'x@example.com', to: otherAddress, subject: 'Elsewhere', text: 'x' });
    const scoped = await scopedClient({ inboxId });
    const page = (await scoped.get('/api/v1/emails?perPage=100')).json();
    expect(page.data.map((e: Listed) => e.id)).toEqual(expect.arrayContaining(sent.map((s) => s.id)));
    expect(page.data.map((e: Listed) => e.id)).not.toContain(elsewhere.id);
    expect((await scoped.get(`/api/v1/emails/${sent[0]?.id}`)).status).toBe(200);
    for (const path of ['', '/content', '/eml']) {
      expect((await scoped.get(`/api/v1/emails/${elsewhere.id}${path}`)).status, path).toBe(404);
    }
    expect((await scoped.patch(`/api/v1/emails/${elsewhere.id}/read`)).status).toBe(404);
    const deletion = await scoped.delete(`/api/v1/emails/${sent[0]?.id}`);
    expect(deletion.status).toBe(403);
    expect(deletion.json()).toMatchObject({ code: 'INBOX_KEY_FORBIDDEN' });
    expect((await t.http.get(`/api/v1/emails/${elsewhere.id}`)).status).toBe(200);
  });

  it('keeps an environment-scoped key to its environment, even when it asks for another', async () => {
    const stagingId = randomUUID();
    await t.app.ctx.repos.tenants.insertEnvironment({ id: stagingId, tenantId: t.tenant.id, name: 'Staging', slug: 'staging', createdAt: new Date().toISOString() });
    const staging = await scopedClient({ environmentId: stagingId });
    expect((await staging.get('/api/v1/emails')).json().totalItems).toBe(0);
    expect((await staging.get(`/api/v1/emails?filter.environmentId=${t.tenant.environmentId}`)).json().totalItems).toBe(0);
    expect((await staging.get(`/api/v1/emails/${sent[0]?.id}`)).status).toBe(404);
    expect((await staging.get(`/api/v1/logs?environmentId=${t.tenant.environmentId}`)).json().totalItems).toBe(0);
    const production = await scopedClient({ environmentId: t.tenant.environmentId });
    const all = (await t.http.get('/api/v1/emails')).json().totalItems;
    expect((await production.get('/api/v1/emails')).json().totalItems).toBe(all);
    expect((await production.get(`/api/v1/emails?filter.environmentId=${stagingId}`)).json().totalItems).toBe(0);
    expect((await production.get(`/api/v1/logs?environmentId=${stagingId}`)).json().totalItems).toBe(0);
    expect((await production.get('/api/v1/logs')).json().totalItems).toBeGreaterThan(0);
  });
});
