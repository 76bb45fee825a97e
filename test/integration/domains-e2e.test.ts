import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DIALECTS, warnIfPostgresSkipped } from '../helpers/databases.js';
import { startDnsServer, type TestDnsServer, type Zone } from '../helpers/dns-server.js';
import { startFakeDnsProvider, type FakeDnsProvider } from '../helpers/fake-dns-provider.js';
import { sendMail } from '../helpers/smtp-client.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

warnIfPostgresSkipped();

const DOMAIN = 'inbound.acme.example';
const TOKEN = 'cf-secret-token-0123456789';

/**
 * The "Done when" of custom domains: add, failed verify, setup through the provider stand-in,
 * verify, receive, disable, enable, delete, over HTTPS and SMTP with a real loopback DNS server.
 */
describe.each(TEST_DIALECTS)('custom domain lifecycle over HTTPS and SMTP (%s)', (dialect) => {
  const zone: Zone = {};
  const logLines: string[] = [];
  let dns: TestDnsServer;
  let provider: FakeDnsProvider;
  let t: TestApp;

  const refused = (to: string) =>
    expect(sendMail(t.smtpPort, { from: 'sender@example.net', to, subject: 'refused', text: 'x' })).rejects.toMatchObject({
      responseCode: 550,
      response: expect.stringContaining('5.1.1'),
    });

  beforeAll(async () => {
    dns = await startDnsServer(zone);
    provider = await startFakeDnsProvider({ token: TOKEN, zones: [{ id: 'zone-acme', name: 'acme.example' }], dnsZone: zone });
    const logger = pino({ level: 'trace' }, { write: (line: string) => void logLines.push(line) });
    t = await startTestApp({
      dialect,
      env: { MAILROOM_MX_HOST: 'mx.mailroom.test', MAILROOM_DNS_SERVERS: dns.address, MAILROOM_DNSPROVIDER_API_URL: provider.url },
      overrides: { logger },
    });
  });
  afterAll(async () => {
    await t?.stop();
    await provider?.close();
    await dns?.close();
  });

  it('goes through add, failed verify, provider setup, verify, receive, disable, enable and delete', async () => {
    const created = await t.http.post('/api/v1/domains', { domain: DOMAIN });
    expect(created.status).toBe(201);
    const { id, verificationCode } = created.json();

    const failed = await t.http.post(`/api/v1/domains/${DOMAIN}/verify`, { code: verificationCode });
    expect(failed.status).toBe(400);
    expect(failed.json().code).toBe('DNS_VERIFICATION_FAILED');
    expect(failed.json().message).toContain(`MX ${DOMAIN}`);
    expect(failed.json().message).toContain(`TXT _mailroom.${DOMAIN}`);
    await refused(`hello@${DOMAIN}`);

    provider.failNext(500, [{ code: 1000, message: 'Internal error, try again' }]);
    const providerDown = await t.http.post(`/api/v1/domains/${DOMAIN}/setup-dnsprovider`, { dnsproviderApiToken: TOKEN });
    expect(providerDown.status).toBe(502);
    expect(providerDown.json()).toMatchObject({ code: 'DNSPROVIDER_UNAVAILABLE', message: expect.stringContaining('Internal error, try again') });

    const setup = await t.http.post(`/api/v1/domains/${DOMAIN}/setup-dnsprovider`, { dnsproviderApiToken: TOKEN });
    expect(setup.status, setup.text).toBe(200);
    expect(setup.json().zone).toEqual({ id: 'zone-acme', name: 'acme.example' });
    expect(provider.requests.filter((r) => r.method === 'POST').every((r) => r.authorization === `Bearer ${TOKEN}`)).toBe(true);

    const verified = await t.http.post(`/api/v1/domains/${DOMAIN}/verify`, { code: verificationCode });
    expect(verified.status, verified.text).toBe(200);
    expect(verified.json()).toMatchObject({ id, verified: true, enabled: true });

    const inbox = await t.http.post('/api/v1/inboxes', { prefix: 'signup', domainId: id });
    expect(inbox.status, inbox.text).toBe(201);
    expect(inbox.json()).toMatchObject({ address: `signup@${DOMAIN}`, domain: { id, domain: DOMAIN } });
    const inboxId = inbox.json().id as string;

    const catchAll = await sendMail(t.smtpPort, { from: 'sender@example.net', to: `anything@${DOMAIN}`, subject: 'catch-all', text: 'caught' });
    const toInbox = await sendMail(t.smtpPort, { from: 'sender@example.net', to: `signup@${DOMAIN}`, subject: 'to the inbox', text: 'code 424242' });
    expect((await t.http.get(`/api/v1/emails/${catchAll.id}`)).json()).toMatchObject({ to: [`anything@${DOMAIN}`], subject: 'catch-all' });
    expect((await t.http.get(`/api/v1/emails/${toInbox.id}`)).status).toBe(200);
    const messages = await t.http.get(`/api/v1/inboxes/${inboxId}/messages`);
    expect(messages.json().data.map((m: { subject: string }) => m.subject)).toEqual(['to the inbox']);

    const disabled = await t.http.post(`/api/v1/domains/${id}/disable`);
    expect(disabled.status).toBe(200);
    expect(disabled.json()).toMatchObject({ enabled: false, verified: true });
    await refused(`anything@${DOMAIN}`);
    await refused(`signup@${DOMAIN}`);
    expect((await t.http.get(`/api/v1/emails/${catchAll.id}`)).status).toBe(200);
    expect((await t.http.get(`/api/v1/inboxes/${inboxId}/messages`)).json().data).toHaveLength(1);

    const enabled = await t.http.post(`/api/v1/domains/${id}/enable`);
    expect(enabled.json()).toMatchObject({ enabled: true });
    const again = await sendMail(t.smtpPort, { from: 'sender@example.net', to: `signup@${DOMAIN}`, subject: 'back again', text: 'x' });
    expect(again.response).toMatch(/^250 /);

    const deleted = await t.http.delete(`/api/v1/domains/${id}`);
    expect(deleted.status).toBe(204);
    expect((await t.http.get(`/api/v1/domains/${id}`)).status).toBe(404);
    expect((await t.http.get('/api/v1/domains')).json()).toEqual([]);
    expect((await t.http.get(`/api/v1/inboxes/${inboxId}`)).status).toBe(404);
    await refused(`anything@${DOMAIN}`);
    await refused(`signup@${DOMAIN}`);
    // Catch-all mail stays with the account; mail held only by the deleted inbox went with it.
    expect((await t.http.get(`/api/v1/emails/${catchAll.id}`)).status).toBe(200);
    expect((await t.http.get(`/api/v1/emails/${toInbox.id}`)).status).toBe(404);

    const readded = await t.http.post('/api/v1/domains', { domain: DOMAIN });
    expect(readded.status).toBe(201);
    expect(readded.json().verificationCode).not.toBe(verificationCode);
  });

  it('never writes the provider token to the log', () => {
    expect(logLines.some((line) => line.includes('DNSPROVIDER_UNAVAILABLE'))).toBe(true);
    expect(logLines.join('\n')).not.toContain(TOKEN);
  });
});
