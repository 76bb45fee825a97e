import { Agent } from 'node:https';
import axios, { type AxiosInstance } from 'axios';
import { ImapFlow } from 'imapflow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DIALECTS, warnIfPostgresSkipped } from '../helpers/databases.js';
import { sendMail, sendRaw } from '../helpers/smtp-client.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

warnIfPostgresSkipped();

interface Page<T> {
  data: T[];
  total: number;
  hasMore?: boolean;
}
interface Inbox {
  id: string;
  address: string;
  aliases: string[];
  tags: string[];
  active: boolean;
}
interface InboxMessage {
  id: string;
  from: string;
  fromName: string;
  textBody: string;
  htmlBody: string | null;
  headers: Record<string, string>;
  attachments: Array<{ id: string; filename: string; contentType: string; size: number; downloadUrl: string }>;
  extracted: { otp: string | null; links: string[]; magicLink: string | null };
}

/**
 * A client written to the hosted service's documented SDK surface (v2.6.x), the way that SDK uses
 * axios: params serialised by axios (arrays as `tags[]=a`), `total` and `hasMore` read from lists, and
 * the attachment name cut out of Content-Disposition by splitting on `filename=`.
 */
function hostedSdk(t: TestApp, apiKey: string) {
  const http: AxiosInstance = axios.create({
    baseURL: `${t.baseUrl}/api/v1`,
    headers: { 'x-api-key': apiKey },
    httpsAgent: new Agent({ ca: t.ca }),
    validateStatus: () => true,
  });
  const ok = <T>(response: { status: number; data: unknown }): T => {
    if (response.status >= 400) throw Object.assign(new Error(`HTTP ${response.status}`), { status: response.status, body: response.data });
    return response.data as T;
  };
  return {
    http,
    inboxes: {
      create: async (body: { prefix?: string; tags?: string[]; aliases?: string[] }) => ok<Inbox>(await http.post('/inboxes', body)),
      list: async (params: { tags?: string[]; page?: number; perPage?: number } = {}) => ok<Page<Inbox>>(await http.get('/inboxes', { params })),
      update: async (id: string, body: { aliases?: string[]; tags?: string[]; active?: boolean }) => ok<Inbox>(await http.patch(`/inboxes/${id}`, body)),
      listMessages: async (id: string, params: { afterId?: string; page?: number; perPage?: number } = {}) =>
        ok<Page<InboxMessage>>(await http.get(`/inboxes/${id}/messages`, { params })),
    },
    emails: {
      downloadAttachment: async (emailId: string, attachmentId: string) => {
        const response = await http.get(`/emails/${emailId}/attachments/${attachmentId}`, { responseType: 'arraybuffer' });
        ok(response);
        const disposition = String(response.headers['content-disposition'] ?? '');
        const filename = disposition.split('filename=')[1]?.replace(/['"]/g, '') ?? 'attachment';
        return { filename, contentType: String(response.headers['content-type']), data: Buffer.from(response.data as ArrayBuffer) };
      },
    },
  };
}

const VERIFY_HTML =
  '<p>Your code is <b>482913</b>.</p><p><a href="https://app.example.test/verify-email?token=Zk3pQ9wX7vL2mN8rT4yB">confirm your email address</a> or <a href="https://example.test/help">get help</a></p>';

describe.each(TEST_DIALECTS)('the hosted service SDK surface against Mailroom (%s)', (dialect) => {
  let t: TestApp;
  let sdk: ReturnType<typeof hostedSdk>;

  beforeAll(async () => {
    t = await startTestApp({ dialect });
    sdk = hostedSdk(t, t.tenant.apiKey);
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('inboxes.list({ tags }) filters by tag (axios sends tags[]=), and lists carry total', async () => {
    const red = await sdk.inboxes.create({ tags: ['red', 'shared'] });
    await sdk.inboxes.create({ tags: ['blue', 'shared'] });
    const reds = await sdk.inboxes.list({ tags: ['red'] });
    expect(reds.data.map((inbox) => inbox.id)).toEqual([red.id]);
    expect(reds.total).toBe(1);
    expect((await sdk.inboxes.list({ tags: ['shared', 'red'] })).data.map((inbox) => inbox.id)).toEqual([red.id]);
    expect((await sdk.inboxes.list({ tags: ['shared'] })).total).toBe(2);
    // The two other spellings clients send mean the same.
    for (const query of ['tags=shared&tags=red', 'tags=shared,red']) {
      const response = await t.http.get(`/api/v1/inboxes?${query}`);
      expect(response.json().data.map((inbox: Inbox) => inbox.id)).toEqual([red.id]);
      expect(response.json()).toMatchObject({ total: 1, totalItems: 1, hasNextPage: false });
    }
  });

  it('listMessages(id, { afterId }) returns only later messages, oldest first, with total and hasMore', async () => {
    const inbox = await sdk.inboxes.create({});
    for (const subject of ['one', 'two', 'three']) await sendMail(t.smtpPort, { from: 'a@example.com', to: inbox.address, subject, text: subject });
    const all = await sdk.inboxes.listMessages(inbox.id, { perPage: 2 });
    expect(all).toMatchObject({ total: 3, hasMore: true });
    expect(all.data.map((m) => m.textBody.trim())).toEqual(['three', 'two']);
    const first = (await sdk.inboxes.listMessages(inbox.id, { page: 2, perPage: 2 })).data[0] as InboxMessage;
    const after = await sdk.inboxes.listMessages(inbox.id, { afterId: first.id });
    expect(after.data.map((m) => m.textBody.trim())).toEqual(['two', 'three']);
    expect(after).toMatchObject({ total: 2, hasMore: false });
  });

  it('create({ aliases }): mail to an alias lands in the inbox, IMAP logs in by alias, an inbox key sees the same inbox', async () => {
    const inbox = await sdk.inboxes.create({ prefix: 'billing', aliases: ['invoices', 'Receipts@' + t.app.ctx.config.mailDomain] });
    const domain = inbox.address.split('@')[1] as string;
    expect(inbox.aliases).toEqual([`invoices@${domain}`, `receipts@${domain}`]);
    await sendMail(t.smtpPort, { from: 'a@example.com', to: `Invoices@${domain}`, subject: 'via alias', text: 'hi' });
    const messages = await sdk.inboxes.listMessages(inbox.id);
    expect(messages.data.map((m) => m.textBody.trim())).toEqual(['hi']);

    const key = (await t.http.post(`/api/v1/inboxes/${inbox.id}/api-keys`, { name: 'scoped', scopes: ['api', 'imap'] })).json().key as string;
    const scoped = hostedSdk(t, key);
    expect((await scoped.inboxes.listMessages(inbox.id)).total).toBe(1);
    const imap = new ImapFlow({
      host: '127.0.0.1',
      port: t.addresses.imap.port,
      secure: true,
      tls: { rejectUnauthorized: false },
      auth: { user: `invoices@${domain}`, pass: key },
      logger: false,
    });
    await imap.connect();
    try {
      expect(await imap.status('INBOX', { messages: true })).toMatchObject({ messages: 1 });
    } finally {
      await imap.logout();
    }
  });

  it('update(id, { aliases, tags, active }): an inactive inbox refuses mail with 550 and keeps its messages', async () => {
    const inbox = await sdk.inboxes.create({ tags: ['before'] });
    const domain = inbox.address.split('@')[1] as string;
    await sendMail(t.smtpPort, { from: 'a@example.com', to: inbox.address, subject: 'kept', text: 'kept' });
    const updated = await sdk.inboxes.update(inbox.id, { aliases: ['support'], tags: ['after'], active: false });
    expect(updated).toMatchObject({ id: inbox.id, aliases: [`support@${domain}`], tags: ['after'], active: false });
    for (const to of [inbox.address, `support@${domain}`]) {
      await expect(sendMail(t.smtpPort, { from: 'a@example.com', to, subject: 'refused', text: 'x' })).rejects.toMatchObject({ responseCode: 550 });
    }
    expect((await sdk.inboxes.listMessages(inbox.id)).total).toBe(1);
    expect((await sdk.inboxes.list({ tags: ['after'] })).data.map((i) => i.id)).toEqual([inbox.id]);

    const reactivated = await sdk.inboxes.update(inbox.id, { active: true });
    expect(reactivated).toMatchObject({ active: true, aliases: [`support@${domain}`], tags: ['after'] });
    await sendMail(t.smtpPort, { from: 'a@example.com', to: `support@${domain}`, subject: 'back', text: 'back' });
    expect((await sdk.inboxes.listMessages(inbox.id)).total).toBe(2);

    const key = (await t.http.post(`/api/v1/inboxes/${inbox.id}/api-keys`, { name: 'scoped', scopes: ['api'] })).json().key as string;
    const refused = await hostedSdk(t, key).http.patch(`/inboxes/${inbox.id}`, { active: false });
    expect(refused.status).toBe(403);
  });

  it('an inbox message carries fromName, htmlBody, headers, attachments and extracted.links as URL strings', async () => {
    const inbox = await sdk.inboxes.create({});
    await sendMail(t.smtpPort, {
      from: '"Acme Accounts" <accounts@acme.example>',
      to: inbox.address,
      subject: 'Verify',
      html: VERIFY_HTML,
      attachments: [{ filename: 'report.pdf', content: Buffer.from('%PDF-1.4 report'), contentType: 'application/pdf' }],
    });
    const [message] = (await sdk.inboxes.listMessages(inbox.id)).data as [InboxMessage];
    expect(message).toMatchObject({ from: 'accounts@acme.example', fromName: 'Acme Accounts', htmlBody: expect.stringContaining('482913') });
    expect(message.headers.subject).toBe('Verify');
    expect(message.extracted.otp).toBe('482913');
    expect(message.extracted.links).toEqual(['https://app.example.test/verify-email?token=Zk3pQ9wX7vL2mN8rT4yB', 'https://example.test/help']);
    expect(message.extracted.magicLink).toBe('https://app.example.test/verify-email?token=Zk3pQ9wX7vL2mN8rT4yB');
    const [attachment] = message.attachments;
    expect(attachment).toMatchObject({ filename: 'report.pdf', contentType: 'application/pdf', size: 15 });

    const emailId = /\/emails\/([^/]+)\//.exec(attachment?.downloadUrl ?? '')?.[1] as string;
    const download = await sdk.emails.downloadAttachment(emailId, attachment?.id as string);
    expect(download).toMatchObject({ filename: 'report.pdf', contentType: 'application/pdf' });
    expect(download.data.toString()).toBe('%PDF-1.4 report');
  });

  it('serves attachments with hostile names and media types instead of failing (RFC 6266 filename* only when needed)', async () => {
    const inbox = await sdk.inboxes.create({});
    const raw = [
      'From: a@example.com',
      `To: ${inbox.address}`,
      'Subject: hostile attachment',
      'MIME-Version: 1.0',
      'Content-Type: multipart/mixed; boundary="b"',
      '',
      '--b',
      'Content-Type: text/plain',
      '',
      'see attached',
      '--b',
      'Content-Type: text/pl\u4e2d\u0001ain',
      'Content-Disposition: attachment; filename="r\u00e9sum\u00e9\u0007.txt"',
      '',
      'body',
      '--b--',
      '',
    ].join('\r\n');
    await sendRaw(t.smtpPort, { from: 'a@example.com', to: [inbox.address] }, Buffer.from(raw, 'utf8'));
    const [message] = (await sdk.inboxes.listMessages(inbox.id)).data as [InboxMessage];
    const attachment = message.attachments[0] as InboxMessage['attachments'][number];
    const response = await sdk.http.get(attachment.downloadUrl.replace(/^\/api\/v1/, ''), { responseType: 'arraybuffer' });
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('application/octet-stream');
    expect(response.headers['content-disposition']).toBe(`attachment; filename="r_sum_.txt"; filename*=UTF-8''r%C3%A9sum%C3%A9.txt`);
  });
});

describe('strict input: bad forms are a 400 naming the field', () => {
  let t: TestApp;
  let inboxId: string;

  beforeAll(async () => {
    t = await startTestApp();
    inboxId = (await t.http.post('/api/v1/inboxes', {})).json().id;
  });
  afterAll(async () => {
    await t?.stop();
  });

  const expectField = async (response: Promise<{ status: number; json(): unknown }>, field: string) => {
    const reply = await response;
    expect(reply.status).toBe(400);
    expect(reply.json()).toMatchObject({ statusCode: 400, field });
  };

  it('does not coerce body types', async () => {
    await expectField(t.http.post('/api/v1/inboxes', { tags: 'x' }), 'tags');
    await expectField(t.http.post('/api/v1/inboxes', ['x']), 'body');
    await expectField(t.http.post('/api/v1/inboxes', { ttlSeconds: '120' }), 'ttlSeconds');
    await expectField(t.http.post(`/api/v1/inboxes/${inboxId}/api-keys`, { name: 'k', scopes: 'api' }), 'scopes');
    await expectField(t.http.patch(`/api/v1/inboxes/${inboxId}`, { body: { active: 'false' } }), 'active');
    await expectField(t.http.patch(`/api/v1/inboxes/${inboxId}`, { body: { aliases: 'sales' } }), 'aliases');
  });

  it('validates numeric query parameters as bounded integers', async () => {
    for (const page of ['1e400', '1.5', 'abc', '0', '99999999999999999999', '-1']) {
      await expectField(t.http.get(`/api/v1/inboxes?page=${page}`), 'page');
      await expectField(t.http.get(`/api/v1/emails?page=${page}`), 'page');
      await expectField(t.http.get(`/api/v1/api-keys?page=${page}`), 'page');
      await expectField(t.http.get(`/api/v1/inboxes/${inboxId}/messages?page=${page}`), 'page');
    }
    await expectField(t.http.get('/api/v1/emails?perPage=1000'), 'perPage');
    await expectField(t.http.get(`/api/v1/inboxes/${inboxId}/messages?perPage=1e3`), 'perPage');
    await expectField(t.http.get('/api/v1/inboxes?page=1&page=2'), 'page');
    await expectField(t.http.get('/api/v1/inboxes?includeExpired=yes'), 'includeExpired');
  });

  it('refuses unknown query parameters by name, on every route', async () => {
    await expectField(t.http.get('/api/v1/emails?search=invoice'), 'search');
    await expectField(t.http.get('/api/v1/inboxes?label[]=a'), 'label[]');
    await expectField(t.http.get('/api/v1/inboxes?page[]=1'), 'page[]');
    await expectField(t.http.get(`/api/v1/inboxes/${inboxId}?verbose=1`), 'verbose');
    await expectField(t.http.get('/api/v1/domains?x=1'), 'x');
  });

  it('keeps the spellings clients send', async () => {
    for (const query of ['filter.read=false', 'filter[read]=false', 'sort[field]=subject&sort.order=asc', 'page=1&perPage=5']) {
      expect((await t.http.get(`/api/v1/emails?${query}`)).status).toBe(200);
    }
    expect((await t.http.get(`/api/v1/inboxes/${inboxId}/messages/wait?timeout=0`)).status).toBe(204);
  });

  it('checks aliases: valid local parts on the inbox domain, at most 10, unique', async () => {
    await expectField(t.http.patch(`/api/v1/inboxes/${inboxId}`, { body: { aliases: ['sales@other.example'] } }), 'aliases.0');
    await expectField(t.http.patch(`/api/v1/inboxes/${inboxId}`, { body: { aliases: ['ok', 'bad name'] } }), 'aliases.1');
    await expectField(t.http.patch(`/api/v1/inboxes/${inboxId}`, { body: { aliases: Array.from({ length: 11 }, (_, i) => `a${i}`) } }), 'aliases');
    const taken = (await t.http.post('/api/v1/inboxes', { prefix: 'taken-one' })).json();
    const conflict = await t.http.patch(`/api/v1/inboxes/${inboxId}`, { body: { aliases: ['taken-one'] } });
    expect(conflict.status).toBe(409);
    expect(conflict.json()).toMatchObject({ code: 'ALIAS_TAKEN', field: 'aliases.0' });
    expect((await t.http.patch(`/api/v1/inboxes/${inboxId}`, { body: { aliases: ['free-alias'] } })).status).toBe(200);
    const reused = await t.http.post('/api/v1/inboxes', { prefix: 'other', aliases: ['free-alias'] });
    expect(reused.status).toBe(409);
    expect((await t.http.patch(`/api/v1/inboxes/${taken.id}`, { body: { aliases: [] } })).json().aliases).toEqual([]);
  });
});
