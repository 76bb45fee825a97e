import { mkdtemp, rm } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DiskBlobStore } from '../../../src/adapters/blobs/disk.blob-store.js';
import { createLogger } from '../../../src/logger.js';
import { TEST_DIALECTS, warnIfPostgresSkipped } from '../../helpers/databases.js';
import type { HttpResponse } from '../../helpers/http-client.js';
import { sendMail } from '../../helpers/smtp-client.js';
import { openEventSource } from '../../helpers/sse-client.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';

warnIfPostgresSkipped();

const SECURITY_HEADERS = {
  'strict-transport-security': 'max-age=31536000; includeSubDomains',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
};

function expectSecurityHeaders(response: HttpResponse): void {
  expect(response.headers).toMatchObject(SECURITY_HEADERS);
  // Ours on API responses; a route with a fuller policy (the dashboard) keeps its own, which also forbids framing.
  expect(response.headers['content-security-policy']).toMatch(/frame-ancestors 'none'/);
  expect(response.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
}

/** A plain-HTTP request, as a TLS-terminating proxy forwards it. */
function plainGet(port: number, path: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe.each(TEST_DIALECTS)('HTTPS only and response hygiene (%s)', (dialect) => {
  describe('direct TLS', () => {
    let t: TestApp;
    const logLines: string[] = [];
    let failReads = false;

    beforeAll(async () => {
      const blobDir = await mkdtemp(join(tmpdir(), 'mailroom-blobs-'));
      const disk = new DiskBlobStore(blobDir);
      // A storage failure on demand, to see what a 500 shows the client and what it logs.
      const blobs = Object.assign(Object.create(disk) as DiskBlobStore, {
        getStream: (key: string) => (failReads ? Promise.reject(new Error('disk on fire')) : disk.getStream(key)),
      });
      const logger = createLogger('trace', { write: (line: string) => void logLines.push(line) });
      t = await startTestApp({ dialect, overrides: { logger, blobs } });
      t.stop = ((stop) => async () => {
        await stop();
        await rm(blobDir, { recursive: true, force: true });
      })(t.stop);
    });
    afterAll(() => t?.stop());

    it('the API answers over TLS only; a plain-HTTP request to the TLS port gets no API response', async () => {
      expect(t.baseUrl).toMatch(/^https:/);
      const plain = await plainGet(t.addresses.http.port, '/api/v1/emails', { 'x-api-key': t.tenant.apiKey }).catch((error: Error) => error);
      if (!(plain instanceof Error)) expect(plain.status).not.toBe(200);
    });

    it('security headers and X-Request-Id on success, error and unknown-route responses', async () => {
      expectSecurityHeaders(await t.http.get('/api/v1/emails'));
      expectSecurityHeaders(await t.http.get('/api/v1/emails', { apiKey: null }));
      expectSecurityHeaders(await t.http.get('/api/v1/nothing-here'));
      expectSecurityHeaders(await t.http.get('/api/v1/openapi.json'));
    });

    it('a 500 shows no stack trace or internal message; the log has it with the request id', async () => {
      const sent = await sendMail(t.smtpPort, { from: 'a@example.com', to: (await t.http.post('/api/v1/inboxes', {})).json().address, text: 'x' });
      failReads = true;
      const response = await t.http.get(`/api/v1/emails/${sent.id}/eml`);
      failReads = false;
      expect(response.status).toBe(500);
      expect(response.json()).toEqual({ statusCode: 500, error: 'Internal Server Error', code: 'INTERNAL_ERROR', message: 'Something went wrong on our side' });
      expect(response.text).not.toContain('disk on fire');
      expect(response.text).not.toMatch(/\bat .+\.(ts|js):\d+/);
      const logged = logLines.map((line) => JSON.parse(line)).find((entry) => JSON.stringify(entry).includes('disk on fire'));
      expect(logged).toMatchObject({ reqId: response.headers['x-request-id'] });
    });

    it('API keys never reach the log: header, token query, wrong, deactivated and newly created keys', async () => {
      const created = (await t.http.post('/api/v1/api-keys', { name: 'logged?' })).json<{ id: string; key: string }>();
      await t.http.get('/api/v1/emails', { apiKey: created.key });
      await t.http.get(`/api/v1/emails?token=${created.key}`, { apiKey: null });
      await t.http.get('/api/v1/emails', { apiKey: `${created.key}-wrong` });
      await t.http.get(`/api/v1/emails/${'x'.repeat(200)}?token=${created.key}`);
      const stream = openEventSource(t, { apiKey: created.key, keyInQuery: true });
      await stream.collector.next((e) => e.type === 'connected');
      stream.close();
      await t.http.post(`/api/v1/api-keys/${created.id}/deactivate`);
      await t.http.get('/api/v1/emails', { apiKey: created.key });
      await t.http.get(`/api/v1/realtime/events?token=${created.key}`, { apiKey: null });
      expect(logLines.length).toBeGreaterThan(0);
      const everything = logLines.join('');
      for (const secret of [created.key, created.key.slice(8), t.tenant.apiKey.slice(8)]) expect(everything).not.toContain(secret);
    });
  });

  describe('behind a TLS-terminating proxy (MAILROOM_TRUST_PROXY=1)', () => {
    let t: TestApp;

    beforeAll(async () => {
      t = await startTestApp({ dialect, env: { MAILROOM_TRUST_PROXY: '1' } });
    });
    afterAll(() => t?.stop());

    it('listens on plain HTTP and serves requests the proxy forwarded as https', async () => {
      const response = await plainGet(t.addresses.http.port, '/api/v1/emails', { 'x-api-key': t.tenant.apiKey, 'x-forwarded-proto': 'https' });
      expect(response.status, response.body).toBe(200);
    });

    it('refuses requests not forwarded as https with 403 and a message, before looking at the key', async () => {
      for (const headers of [{}, { 'x-forwarded-proto': 'http' }] as Array<Record<string, string>>) {
        const response = await plainGet(t.addresses.http.port, '/api/v1/emails', { 'x-api-key': t.tenant.apiKey, ...headers });
        expect(response.status).toBe(403);
        expect(JSON.parse(response.body)).toMatchObject({ statusCode: 403, code: 'HTTPS_REQUIRED', message: expect.stringContaining('HTTPS') });
      }
      const keyless = await plainGet(t.addresses.http.port, '/api/v1/emails', {});
      expect(JSON.parse(keyless.body)).toMatchObject({ code: 'HTTPS_REQUIRED' });
    });
  });
});
