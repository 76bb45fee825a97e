import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DIALECTS, warnIfPostgresSkipped } from '../helpers/databases.js';
import { startDnsServer, type TestDnsServer, type Zone } from '../helpers/dns-server.js';
import { startFakeDnsProvider, type FakeDnsProvider } from '../helpers/fake-dns-provider.js';
import { sendMail } from '../helpers/smtp-client.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

warnIfPostgresSkipped();

const MX_HOST = 'mx.mailroom.test';
const TOKEN = 'cf-token-with-dns-edit';

interface DomainDetail {
  id: string;
  domain: string;
  unicodeDomain: string;
  verified: boolean;
  enabled: boolean;
  verificationCode: string;
  records: Array<{ type: string; name: string; value: string; priority?: number; status: string; checkedAt: string | null; error: string | null }>;
  lastCheckedAt: string | null;
}

describe.each(TEST_DIALECTS)('custom domains (%s)', (dialect) => {
  const zone: Zone = {};
  let dns: TestDnsServer;
  let provider: FakeDnsProvider;
  let t: TestApp;

  const add = async (domain: string): Promise<DomainDetail> => {
    const response = await t.http.post('/api/v1/domains', { domain });
    expect(response.status, response.text).toBe(201);
    return response.json();
  };
  const publishByHand = (detail: DomainDetail, overrides: { mx?: string; txt?: string } = {}) => {
    zone[detail.domain] = { MX: [{ exchange: overrides.mx ?? MX_HOST, priority: 10 }] };
    zone[`_mailroom.${detail.domain}`] = { TXT: ['v=spf1 -all', overrides.txt ?? `mailroom-verification=${detail.verificationCode}`] };
  };

  beforeAll(async () => {
    dns = await startDnsServer(zone);
    provider = await startFakeDnsProvider({
      token: TOKEN,
      zones: [
        { id: 'zone-example-org', name: 'example.org' },
        { id: 'zone-shop-example-org', name: 'shop.example.org' },
      ],
      dnsZone: zone,
      records: [{ id: 'old-txt', zoneId: 'zone-example-org', type: 'TXT', name: '_mailroom.blog.example.org', content: '"mailroom-verification=stale"', ttl: 1 }],
    });
    t = await startTestApp({
      dialect,
      env: {
        MAILROOM_MAIL_DOMAIN: 'mailroom.test',
        MAILROOM_MX_HOST: MX_HOST,
        MAILROOM_DNS_SERVERS: dns.address,
        MAILROOM_DNSPROVIDER_API_URL: provider.url,
      },
    });
  });
  afterAll(async () => {
    await t?.stop();
    await provider?.close();
    await dns?.close();
  });

  describe('adding', () => {
    it('answers 201 with the MX and TXT records to publish', async () => {
      const detail = await add('Mail.Example.com');
      expect(detail).toMatchObject({ domain: 'mail.example.com', unicodeDomain: 'mail.example.com', verified: false, enabled: true, lastCheckedAt: null });
      expect(detail.verificationCode).toMatch(/^[0-9a-f]{32}$/);
      expect(detail.records).toEqual([
        { type: 'MX', name: 'mail.example.com', value: MX_HOST, priority: 10, ttl: 3600, status: 'pending', checkedAt: null, error: null },
        { type: 'TXT', name: '_mailroom.mail.example.com', value: `mailroom-verification=${detail.verificationCode}`, ttl: 3600, status: 'pending', checkedAt: null, error: null },
      ]);
    });

    it('stores IDN names as punycode with the Unicode form', async () => {
      const detail = await add('Bücher.example');
      expect(detail).toMatchObject({ domain: 'xn--bcher-kva.example', unicodeDomain: 'bücher.example' });
      expect(detail.records[1]?.name).toBe('_mailroom.xn--bcher-kva.example');
    });

    it.each(['192.0.2.7', '[::1]', 'localhost', 'mailroom.test', 'inbox.mailroom.test', 'co.uk', 'bad_name.example.com', 'a..example.com'])(
      'refuses %j with 400 naming domain',
      async (domain) => {
        const response = await t.http.post('/api/v1/domains', { domain });
        expect(response.status).toBe(400);
        expect(response.json()).toMatchObject({ code: 'INVALID_DOMAIN', field: 'domain' });
      },
    );

    it('refuses a missing or non-string domain with 400 naming domain', async () => {
      for (const body of [{}, { domain: 42 }, { domain: '' }]) {
        const response = await t.http.post('/api/v1/domains', body);
        expect(response.status).toBe(400);
        expect(response.json().field).toBe('domain');
      }
    });

    it('answers 409 when any tenant already added the name', async () => {
      await add('taken.example.net');
      const again = await t.http.post('/api/v1/domains', { domain: 'TAKEN.example.net.' });
      expect(again.status).toBe(409);
      expect(again.json()).toMatchObject({ code: 'DOMAIN_EXISTS' });
      const other = await t.createTenant('Squatter');
      const theirs = await t.client(other.apiKey).post('/api/v1/domains', { domain: 'taken.example.net' });
      expect(theirs.status).toBe(409);
      expect(theirs.json().message).toContain('another account');
    });

    it("an unverified claim does not block the owner: publishing its own TXT record takes the name over; a verified claim stays", async () => {
      const squatted = await add('contested.example.net');
      const owner = t.client((await t.createTenant('Real owner')).apiKey);
      const refused = await owner.post('/api/v1/domains', { domain: 'contested.example.net' });
      expect(refused.json()).toMatchObject({ statusCode: 409, code: 'DOMAIN_EXISTS' });
      const txt = /publish TXT (\S+) "([^"]+)"/.exec(refused.json().message as string);
      expect(txt?.[1]).toBe('_mailroom.contested.example.net');
      zone['_mailroom.contested.example.net'] = { TXT: [txt?.[2] as string] };
      const taken = await owner.post('/api/v1/domains', { domain: 'contested.example.net' });
      expect(taken.status, taken.text).toBe(201);
      expect(`mailroom-verification=${taken.json().verificationCode}`).toBe(txt?.[2]);
      expect((await t.http.get(`/api/v1/domains/${squatted.id}`)).status).toBe(404);

      zone['contested.example.net'] = { MX: [{ exchange: MX_HOST, priority: 10 }] };
      expect((await owner.post('/api/v1/domains/contested.example.net/verify', { code: taken.json().verificationCode })).json().verified).toBe(true);
      const late = await t.http.post('/api/v1/domains', { domain: 'contested.example.net' });
      expect(late.json()).toMatchObject({ statusCode: 409, code: 'DOMAIN_EXISTS' });
      expect(late.json().message).toContain('another account');
    });

    it('an unverified claim lapses after MAILROOM_DOMAIN_CLAIM_DAYS (7): another account then adds the name', async () => {
      const stale = await add('stale.example.net');
      const other = t.client((await t.createTenant('Later owner')).apiKey);
      expect((await other.post('/api/v1/domains', { domain: 'stale.example.net' })).status).toBe(409);
      const eightDaysAgo = new Date(Date.now() - 8 * 86_400_000).toISOString();
      await t.app.ctx.db.kysely.updateTable('domains').set({ created_at: eightDaysAgo }).where('id', '=', stale.id).execute();
      expect((await other.post('/api/v1/domains', { domain: 'stale.example.net' })).status).toBe(201);
      expect((await t.http.get(`/api/v1/domains/${stale.id}`)).status).toBe(404);
    });

    it('lists the tenant’s domains as a plain array and hides them from other tenants (404)', async () => {
      const list = await t.http.get('/api/v1/domains');
      expect(list.status).toBe(200);
      const domains = list.json() as DomainDetail[];
      expect(Array.isArray(domains)).toBe(true);
      expect(domains.map((d) => d.domain)).toEqual(expect.arrayContaining(['mail.example.com', 'xn--bcher-kva.example']));
      expect(Object.keys(domains[0]!).sort()).toEqual(['createdAt', 'domain', 'enabled', 'id', 'unicodeDomain', 'verified']);

      const other = await t.createTenant('Other');
      const stranger = t.client(other.apiKey);
      const id = domains[0]!.id;
      expect((await stranger.get('/api/v1/domains')).json()).toEqual([]);
      for (const response of [
        await stranger.get(`/api/v1/domains/${id}`),
        await stranger.post(`/api/v1/domains/${id}/disable`),
        await stranger.delete(`/api/v1/domains/${id}`),
        await stranger.post(`/api/v1/domains/${domains[0]!.domain}/verify`, { code: 'x' }),
      ]) {
        expect(response.status).toBe(404);
        expect(response.json().code).toBe('DOMAIN_NOT_FOUND');
      }
    });
  });

  describe('verifying through DNS', () => {
    it('verifies when the MX and TXT records are published, and records when each was checked', async () => {
      const detail = await add('verified.example.com');
      publishByHand(detail);
      const response = await t.http.post(`/api/v1/domains/verified.example.com/verify`, { code: detail.verificationCode });
      expect(response.status, response.text).toBe(200);
      const body = response.json() as DomainDetail;
      expect(body.verified).toBe(true);
      expect(body.records.map((r) => r.status)).toEqual(['verified', 'verified']);
      expect(body.records[0]?.checkedAt).toBe(body.lastCheckedAt);

      const fetched = (await t.http.get(`/api/v1/domains/${detail.id}`)).json() as DomainDetail;
      expect(fetched).toMatchObject({ verified: true, lastCheckedAt: body.lastCheckedAt });
      expect(fetched.records.every((r) => r.status === 'verified' && r.checkedAt !== null)).toBe(true);
    });

    it('takes the Unicode form of an IDN name in the path', async () => {
      const detail = await add('Bücher-läden.example');
      publishByHand(detail);
      const response = await t.http.post('/api/v1/domains/bücher-läden.example/verify', { code: detail.verificationCode });
      expect(response.status, response.text).toBe(200);
      expect(response.json()).toMatchObject({ domain: 'xn--bcher-lden-w5a5z.example', verified: true });
    });

    it('takes a name longer than 100 characters in the path (up to the 253 DNS allows)', async () => {
      const long = `${'a'.repeat(60)}.${'b'.repeat(60)}.${'c'.repeat(60)}.example.com`;
      const detail = await add(long);
      publishByHand(detail);
      const response = await t.http.post(`/api/v1/domains/${long}/verify`, { code: detail.verificationCode });
      expect(response.status, response.text).toBe(200);
      expect(response.json()).toMatchObject({ domain: long, verified: true });
    });

    it('fails with 400 naming the TXT record when its value is wrong', async () => {
      const detail = await add('wrongtxt.example.com');
      publishByHand(detail, { txt: 'mailroom-verification=somebody-else' });
      const response = await t.http.post('/api/v1/domains/wrongtxt.example.com/verify', { code: detail.verificationCode });
      expect(response.status).toBe(400);
      const body = response.json();
      expect(body).toMatchObject({ statusCode: 400, code: 'DNS_VERIFICATION_FAILED' });
      expect(body.message).toContain('TXT _mailroom.wrongtxt.example.com');
      expect(body.message).toContain('"mailroom-verification=somebody-else"');
      expect(body.message).not.toContain('MX wrongtxt');
      expect(body.records.map((r: { status: string }) => r.status)).toEqual(['verified', 'failed']);
      expect((await t.http.get(`/api/v1/domains/${detail.id}`)).json()).toMatchObject({ verified: false, records: [{ status: 'verified' }, { status: 'failed' }] });
    });

    it('fails with 400 naming the MX record when it is missing or points elsewhere', async () => {
      const detail = await add('nomx.example.com');
      publishByHand(detail);
      zone['nomx.example.com'] = { TXT: ['unrelated'] };
      const missing = await t.http.post('/api/v1/domains/nomx.example.com/verify', { code: detail.verificationCode });
      expect(missing.status).toBe(400);
      expect(missing.json().message).toContain('no MX nomx.example.com record found');
      expect(missing.json().records[0]).toMatchObject({ type: 'MX', status: 'failed' });

      zone['nomx.example.com'] = { MX: [{ exchange: 'mx.elsewhere.example', priority: 5 }] };
      const elsewhere = await t.http.post('/api/v1/domains/nomx.example.com/verify', { code: detail.verificationCode });
      expect(elsewhere.status).toBe(400);
      expect(elsewhere.json().message).toContain('MX nomx.example.com has "mx.elsewhere.example"');
    });

    it('fails with 400 naming both records when nothing is published (NXDOMAIN)', async () => {
      const detail = await add('nothing.example.com');
      const response = await t.http.post('/api/v1/domains/nothing.example.com/verify', { code: detail.verificationCode });
      expect(response.status).toBe(400);
      expect(response.json().message).toMatch(/MX nothing\.example\.com.*TXT _mailroom\.nothing\.example\.com/);
    });

    it('refuses a wrong code with 400 naming code, and an unknown name with 404', async () => {
      await add('code.example.com');
      const wrong = await t.http.post('/api/v1/domains/code.example.com/verify', { code: 'not-the-code' });
      expect(wrong.status).toBe(400);
      expect(wrong.json()).toMatchObject({ code: 'VERIFICATION_CODE_MISMATCH', field: 'code' });
      const missing = await t.http.post('/api/v1/domains/code.example.com/verify', {});
      expect(missing.status).toBe(400);
      expect(missing.json().field).toBe('code');
      expect((await t.http.post('/api/v1/domains/unknown.example.com/verify', { code: 'x' })).status).toBe(404);
    });

    it('rechecks periodically: pending domains verify once their records appear, broken records are flagged without un-verifying', async () => {
      const pending = await add('later.example.com');
      const verified = await add('breaks.example.com');
      publishByHand(verified);
      expect((await t.http.post('/api/v1/domains/breaks.example.com/verify', { code: verified.verificationCode })).status).toBe(200);
      publishByHand(pending);
      delete zone['_mailroom.breaks.example.com'];

      await t.app.ctx.services.domains.recheckDue(0);

      expect((await t.http.get(`/api/v1/domains/${pending.id}`)).json()).toMatchObject({ verified: true, records: [{ status: 'verified' }, { status: 'verified' }] });
      const broken = (await t.http.get(`/api/v1/domains/${verified.id}`)).json() as DomainDetail;
      expect(broken).toMatchObject({ verified: true, records: [{ status: 'verified' }, { status: 'failed' }] });
      expect(broken.records[1]?.error).toContain('no TXT _mailroom.breaks.example.com record found');
      const sent = await sendMail(t.smtpPort, { from: 'a@example.net', to: 'still@breaks.example.com', subject: 'still routed', text: 'x' });
      expect(sent.response).toMatch(/^250 /);
    });
  });

  describe('setup through the DNS provider', () => {
    it('finds the longest matching zone, creates MX and TXT with the token as bearer, and the records verify', async () => {
      const detail = await add('mail.shop.example.org');
      provider.requests.length = 0;
      const response = await t.http.post('/api/v1/domains/mail.shop.example.org/setup-dnsprovider', { dnsproviderApiToken: TOKEN });
      expect(response.status, response.text).toBe(200);
      const body = response.json();
      expect(body.zone).toEqual({ id: 'zone-shop-example-org', name: 'shop.example.org' });
      expect(body.changes).toEqual([
        { type: 'MX', name: 'mail.shop.example.org', action: 'created' },
        { type: 'TXT', name: '_mailroom.mail.shop.example.org', action: 'created' },
      ]);
      expect(body.domain).toMatchObject({ verified: true, records: [{ status: 'verified' }, { status: 'verified' }] });

      expect(provider.requests.every((r) => r.authorization === `Bearer ${TOKEN}`)).toBe(true);
      expect(provider.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
        'GET /client/v4/zones',
        'GET /client/v4/zones',
        'GET /client/v4/zones/zone-shop-example-org/dns_records',
        'POST /client/v4/zones/zone-shop-example-org/dns_records',
        'GET /client/v4/zones/zone-shop-example-org/dns_records',
        'POST /client/v4/zones/zone-shop-example-org/dns_records',
      ]);
      expect(provider.requests[0]?.query.name).toBe('mail.shop.example.org');
      expect(provider.requests[1]?.query.name).toBe('shop.example.org');
      expect(provider.requests[3]?.body).toEqual({ type: 'MX', name: 'mail.shop.example.org', content: MX_HOST, priority: 10, ttl: 3600 });
      expect(provider.requests[5]?.body).toEqual({ type: 'TXT', name: '_mailroom.mail.shop.example.org', content: `mailroom-verification=${detail.verificationCode}`, ttl: 3600 });

      const again = await t.http.post('/api/v1/domains/mail.shop.example.org/setup-dnsprovider', { dnsproviderApiToken: TOKEN });
      expect(again.json().changes.map((c: { action: string }) => c.action)).toEqual(['unchanged', 'unchanged']);
    });

    it('updates an older ownership TXT record in place and honours an explicit zoneId', async () => {
      const detail = await add('blog.example.org');
      const response = await t.http.post('/api/v1/domains/blog.example.org/setup-dnsprovider', { dnsproviderApiToken: TOKEN, zoneId: 'zone-example-org' });
      expect(response.status, response.text).toBe(200);
      expect(response.json().changes).toEqual([
        { type: 'MX', name: 'blog.example.org', action: 'created' },
        { type: 'TXT', name: '_mailroom.blog.example.org', action: 'updated' },
      ]);
      expect(provider.records.find((r) => r.id === 'old-txt')?.content).toBe(`mailroom-verification=${detail.verificationCode}`);
      expect(response.json().domain.verified).toBe(true);
    });

    it('turns provider errors into 400 or 502 with the provider’s message, naming the field', async () => {
      await add('errors.example.org');
      const url = '/api/v1/domains/errors.example.org/setup-dnsprovider';

      const badToken = await t.http.post(url, { dnsproviderApiToken: 'wrong-token' });
      expect(badToken.status).toBe(400);
      expect(badToken.json()).toMatchObject({ code: 'DNSPROVIDER_TOKEN_REJECTED', field: 'dnsproviderApiToken', message: expect.stringContaining('Authentication error') });

      provider.failNext(403, [{ code: 9109, message: 'Unauthorized to access requested resource' }]);
      const denied = await t.http.post(url, { dnsproviderApiToken: TOKEN });
      expect(denied.status).toBe(400);
      expect(denied.json().message).toContain('Unauthorized to access requested resource');

      provider.failNext(429, [{ code: 971, message: 'Please wait and consider throttling your request speed' }]);
      const limited = await t.http.post(url, { dnsproviderApiToken: TOKEN });
      expect(limited.status).toBe(502);
      expect(limited.json()).toMatchObject({ statusCode: 502, error: 'Bad Gateway', code: 'DNSPROVIDER_RATE_LIMITED', message: expect.stringContaining('throttling') });

      const wrongZone = await t.http.post(url, { dnsproviderApiToken: TOKEN, zoneId: 'zone-shop-example-org' });
      expect(wrongZone.status).toBe(400);
      expect(wrongZone.json()).toMatchObject({ code: 'DNSPROVIDER_ZONE_MISMATCH', field: 'zoneId' });

      const unknownZone = await t.http.post(url, { dnsproviderApiToken: TOKEN, zoneId: 'no-such-zone' });
      expect(unknownZone.status).toBe(400);
      expect(unknownZone.json()).toMatchObject({ field: 'zoneId', message: expect.stringContaining('object identifier is invalid') });

      const missingToken = await t.http.post(url, {});
      expect(missingToken.status).toBe(400);
      expect(missingToken.json().field).toBe('dnsproviderApiToken');
    });

    it('answers 400 naming zoneId when the token sees no zone for the domain', async () => {
      await add('mail.example.com.au');
      const response = await t.http.post('/api/v1/domains/mail.example.com.au/setup-dnsprovider', { dnsproviderApiToken: TOKEN });
      expect(response.status).toBe(400);
      expect(response.json()).toMatchObject({ code: 'DNSPROVIDER_ZONE_NOT_FOUND', field: 'zoneId', message: expect.stringContaining('mail.example.com.au, example.com.au') });
    });
  });
});
