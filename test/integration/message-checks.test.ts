import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../helpers/mailroom-process.js';
import { newsletterHtml } from '../helpers/newsletter.js';
import { sendMail } from '../helpers/smtp-client.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

const NO_SUCH_ID = '00000000-0000-4000-8000-000000000000';

interface LinkEntry {
  url: string;
  kind: string;
  result: string;
  statusCode: number | null;
  finalUrl: string;
  redirects: unknown[];
  error: { kind: string; message: string } | null;
}

/** A local web site: pages, a HEAD-refusing page, redirects, and a slow page that counts requests in flight. */
async function startSite(): Promise<{ server: Server; base: string; hits: string[]; maxInFlight: () => number }> {
  const hits: string[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const server = createServer((req, res) => {
    hits.push(`${req.method} ${req.url}`);
    const url = req.url ?? '';
    if (url.startsWith('/slow/')) {
      inFlight += 1;
      maxInFlight = Math.max(maxInFlight, inFlight);
      setTimeout(() => {
        inFlight -= 1;
        res.writeHead(200).end();
      }, 150);
      return;
    }
    if (url === '/ok' || url === '/logo.png') return res.writeHead(200).end();
    if (url === '/no-head') return res.writeHead(req.method === 'HEAD' ? 405 : 200).end();
    if (url === '/old') return res.writeHead(301, { location: '/ok' }).end();
    return res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, hits, maxInFlight: () => maxInFlight };
}

describe('message checks: GET /emails/:id/html-check and /link-check', () => {
  let t: TestApp;
  let site: Awaited<ReturnType<typeof startSite>>;
  let address: string;

  beforeAll(async () => {
    site = await startSite();
    t = await startTestApp({ env: { MAILROOM_LINK_CHECK_ALLOW_PRIVATE: '1' } });
    address = (await t.http.post('/api/v1/inboxes', { prefix: 'checks' })).json().address;
  });
  afterAll(async () => {
    await t?.stop();
    site?.server.close();
  });

  it('html-check lists the features in use and, per client family, what is unsupported, with notes and scores', async () => {
    const { id } = await sendMail(t.smtpPort, { from: 'news@example.com', to: address, subject: 'Newsletter', html: newsletterHtml(), text: 'plain' });
    const response = await t.http.get(`/api/v1/emails/${id}/html-check`);
    expect(response.status, response.text).toBe(200);
    const body = response.json();
    expect(body).toMatchObject({ emailId: id, dataset: { name: 'caniemail' }, clientsWithoutData: [] });
    expect(body.score).toBeGreaterThan(0);
    expect(body.score).toBeLessThan(100);
    const titles = body.features.map((f: { title: string }) => f.title);
    expect(titles).toEqual(expect.arrayContaining(['border-radius', '@media', ':hover', '<style> element']));
    const families = body.families.map((f: { family: string }) => f.family);
    expect(families).toEqual(expect.arrayContaining(['gmail', 'outlook', 'apple-mail', 'yahoo']));
    const outlook = body.families.find((f: { family: string }) => f.family === 'outlook');
    expect(outlook.name).toBe('Outlook');
    const windows = outlook.clients.find((c: { client: string }) => c.client === 'outlook.windows');
    expect(windows.unsupported.map((f: { feature: string }) => f.feature)).toEqual(expect.arrayContaining(['border-radius', ':hover']));
    const gmail = body.families.find((f: { family: string }) => f.family === 'gmail').clients.find((c: { client: string }) => c.client === 'gmail.desktop-webmail');
    expect(gmail.partial.find((f: { feature: string }) => f.feature === 'margin').notes.join(' ')).toMatch(/negative/i);
    expect(windows.score).toBeLessThan(gmail.score);
  });

  it('html-check of a mail without HTML is 409 EMAIL_HAS_NO_HTML; unknown and foreign ids are 404 as for GET /emails/:id', async () => {
    const { id } = await sendMail(t.smtpPort, { from: 'a@example.com', to: address, subject: 'Plain', text: 'only text' });
    const noHtml = await t.http.get(`/api/v1/emails/${id}/html-check`);
    expect(noHtml.status).toBe(409);
    expect(noHtml.json()).toMatchObject({ code: 'EMAIL_HAS_NO_HTML' });
    expect((await t.http.get(`/api/v1/emails/${NO_SUCH_ID}/html-check`)).json()).toMatchObject({ statusCode: 404, code: 'EMAIL_NOT_FOUND' });
    const other = t.client((await t.createTenant('Intruder')).apiKey);
    for (const check of ['html-check', 'link-check']) {
      const response = await other.get(`/api/v1/emails/${id}/${check}`);
      expect(response.status, check).toBe(404);
      expect(response.json()).toMatchObject({ code: 'EMAIL_NOT_FOUND' });
    }
  });

  it('400 naming a query parameter the checks do not take, before any link is followed; 400 for an overlong id', async () => {
    const { id } = await sendMail(t.smtpPort, { from: 'q@example.com', to: address, subject: 'Query', html: `<a href="${site.base}/ok">ok</a>` });
    const hitsBefore = site.hits.length;
    for (const check of ['html-check', 'link-check']) {
      for (const [query, field] of [
        ['markAsRead=true', 'markAsRead'],
        ['timeout=5000', 'timeout'],
        ['nocache', 'nocache'],
        ['clients[]=gmail', 'clients[]'],
        ['filter[kind]=image', 'filter[kind]'],
      ] as const) {
        const response = await t.http.get(`/api/v1/emails/${id}/${check}?${query}`);
        expect(response.status, `${check}?${query}: ${response.text}`).toBe(400);
        expect(response.json()).toMatchObject({ statusCode: 400, code: 'VALIDATION_ERROR', field, message: `${field} is not a known query parameter` });
      }
      const overlong = await t.http.get(`/api/v1/emails/${'a'.repeat(101)}/${check}`);
      expect(overlong.status, overlong.text).toBe(400);
      expect(overlong.json()).toMatchObject({ code: 'VALIDATION_ERROR', field: 'id' });
    }
    expect(site.hits.length).toBe(hitsBefore);
  });

  it('link-check follows every link and image and reports each one; per-URL failures never fail the request', async () => {
    // A port nothing listens on, and outside the range another test's listen(0) could take meanwhile.
    const closedUrl = `http://127.0.0.1:${await freePort()}/`;
    const html = `<p><a href="${site.base}/ok">ok</a> <a href="${site.base}/old">moved</a> <a href="${site.base}/no-head">no head</a>
      <a href="${site.base}/missing">missing</a> <a href="${closedUrl}">down</a> <a href="mailto:x@example.com">mail</a>
      <img src="${site.base}/logo.png"> <a href="${site.base}/ok">ok again</a></p>`;
    const { id } = await sendMail(t.smtpPort, { from: 'links@example.com', to: address, subject: 'Links', html });
    const response = await t.http.get(`/api/v1/emails/${id}/link-check`);
    expect(response.status, response.text).toBe(200);
    const body = response.json<{ total: number; truncated: boolean; summary: object; links: LinkEntry[] }>();
    expect(body).toMatchObject({ total: 6, truncated: false, summary: { ok: 4, broken: 1, error: 1 } });
    const byUrl = new Map(body.links.map((l) => [l.url, l]));
    expect(byUrl.get(`${site.base}/ok`)).toMatchObject({ kind: 'link', result: 'ok', statusCode: 200, redirects: [], error: null });
    expect(byUrl.get(`${site.base}/old`)).toMatchObject({ result: 'ok', statusCode: 200, finalUrl: `${site.base}/ok`, redirects: [{ url: `${site.base}/old`, method: 'HEAD', statusCode: 301 }] });
    expect(byUrl.get(`${site.base}/no-head`)).toMatchObject({ result: 'ok', statusCode: 200 });
    expect(byUrl.get(`${site.base}/missing`)).toMatchObject({ result: 'broken', statusCode: 404 });
    expect(byUrl.get(closedUrl)).toMatchObject({ result: 'error', statusCode: null, error: { kind: 'connection' } });
    expect(byUrl.get(`${site.base}/logo.png`)).toMatchObject({ kind: 'image', result: 'ok' });
    expect(site.hits).toContain('GET /no-head');
  });

  it('link-check keeps at most 20 requests in flight', async () => {
    const links = Array.from({ length: 45 }, (_, i) => `<a href="${site.base}/slow/${i}">${i}</a>`).join(' ');
    const { id } = await sendMail(t.smtpPort, { from: 'many@example.com', to: address, subject: 'Many links', html: `<p>${links}</p>` });
    const response = await t.http.get(`/api/v1/emails/${id}/link-check`);
    expect(response.json()).toMatchObject({ total: 45, summary: { ok: 45 } });
    expect(site.maxInFlight()).toBe(20);
  });
});

describe('link-check without MAILROOM_LINK_CHECK_ALLOW_PRIVATE', () => {
  let t: TestApp;
  let site: Awaited<ReturnType<typeof startSite>>;

  beforeAll(async () => {
    site = await startSite();
    t = await startTestApp();
  });
  afterAll(async () => {
    await t?.stop();
    site?.server.close();
  });

  it('refuses loopback links: each is reported blocked and the listener sees nothing', async () => {
    const address = (await t.http.post('/api/v1/inboxes', { prefix: 'guarded' })).json().address;
    const html = `<a href="${site.base}/ok">a</a> <a href="http://[::1]:${new URL(site.base).port}/ok">b</a>`;
    const { id } = await sendMail(t.smtpPort, { from: 'x@example.com', to: address, subject: 'Internal', html });
    const response = await t.http.get(`/api/v1/emails/${id}/link-check`);
    expect(response.status).toBe(200);
    const body = response.json<{ summary: object; links: LinkEntry[] }>();
    expect(body.summary).toEqual({ ok: 0, broken: 0, error: 2 });
    for (const link of body.links) expect(link.error?.kind).toBe('blocked');
    expect(site.hits).toEqual([]);
  });
});
