import { GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DIALECTS, warnIfPostgresSkipped } from '../helpers/databases.js';
import { startS3rver, type RunningServer } from '../helpers/object-store-servers.js';
import { sendMail } from '../helpers/smtp-client.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

warnIfPostgresSkipped();

const BUCKET = 'customer-mail';
const OTHER_BUCKET = 'customer-archive';
const S3_KEYS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

const s3Body = (endpoint: string, bucket: string = BUCKET, extra: Record<string, unknown> = {}) => ({
  provider: 'S3',
  bucket,
  region: 'eu-west-1',
  endpoint,
  forcePathStyle: true,
  prefix: 'mailroom',
  credentials: S3_KEYS,
  ...extra,
});

async function objectText(client: S3Client, bucket: string, key: string): Promise<string> {
  const object = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  return (await object.Body?.transformToString()) ?? '';
}

async function keysIn(client: S3Client, bucket: string): Promise<string[]> {
  const listed = await client.send(new ListObjectsV2Command({ Bucket: bucket }));
  return (listed.Contents ?? []).map((o) => o.Key ?? '').sort();
}

/** The SMTP reply code of a refused message (nodemailer rejects with it). */
async function refusedWith(send: Promise<unknown>): Promise<{ code: number; response: string }> {
  const error = (await send.then(() => undefined, (e: unknown) => e)) as { responseCode?: number; response?: string } | undefined;
  return { code: error?.responseCode ?? 250, response: error?.response ?? '' };
}

describe.each(TEST_DIALECTS)('custom storage in the customer\'s S3 bucket (%s)', (dialect) => {
  let s3: RunningServer;
  let s3Client: S3Client;
  let t: TestApp;
  let receiver: WebhookReceiver;
  let address: string;

  beforeAll(async () => {
    s3 = await startS3rver([BUCKET, OTHER_BUCKET]);
    // A copy: the SDK adds bookkeeping fields to the credentials object it is given.
    s3Client = new S3Client({ region: 'eu-west-1', endpoint: s3.endpoint, forcePathStyle: true, credentials: { ...S3_KEYS } });
    receiver = await startWebhookReceiver();
    t = await startTestApp({
      dialect,
      env: { MAILROOM_STORAGE_ALLOW_PRIVATE_ENDPOINTS: '1', MAILROOM_ALLOW_PRIVATE_WEBHOOKS: '1', MAILROOM_WEBHOOK_POLL_INTERVAL_MS: '20' },
    });
    address = (await t.http.post('/api/v1/inboxes', { prefix: 'bucketed' })).json().address;
    expect((await t.http.post('/api/v1/webhooks', { url: `${receiver.origin}/hook` })).status).toBe(201);
  });
  afterAll(async () => {
    await t?.stop();
    s3Client?.destroy();
    await receiver?.close();
    await s3?.close();
  });

  it('a pro tenant sets S3 storage: its mail is in the bucket at the documented paths, downloadable, and the webhook says so', async () => {
    const put = await t.http.put('/api/v1/storage', s3Body(s3.endpoint));
    expect(put.status).toBe(200);
    const config = put.json();
    expect(config).toMatchObject({ provider: 'S3', bucket: BUCKET, region: 'eu-west-1', forcePathStyle: true, prefix: 'mailroom/', metadataOnly: false });
    expect(JSON.stringify(config)).not.toContain('S3RVER');
    expect((await t.http.get('/api/v1/storage')).json()).toEqual(config);

    const sent = await sendMail(t.smtpPort, {
      from: 'alice@example.com',
      to: address,
      subject: 'Invoice',
      text: 'Your invoice is attached.',
      attachments: [{ filename: 'invoice 2026.txt', content: 'total: 42' }],
    });
    const email = (await t.http.get(`/api/v1/emails/${sent.id}`)).json();
    const attachment = email.attachments[0];
    const day = (email.createdAt as string).slice(0, 10).replaceAll('-', '/');
    const folder = `mailroom/${t.tenant.id}/${day}/${sent.id}/`;
    expect(await keysIn(s3Client, BUCKET)).toEqual([`${folder}attachments/${attachment.id}/invoice 2026.txt`, `${folder}message.eml`]);
    expect(await objectText(s3Client, BUCKET, `${folder}message.eml`)).toContain('Subject: Invoice');
    expect(await objectText(s3Client, BUCKET, `${folder}attachments/${attachment.id}/invoice 2026.txt`)).toBe('total: 42');

    const eml = await t.http.get(`/api/v1/emails/${sent.id}/eml`);
    expect(eml.status).toBe(200);
    expect(eml.text).toContain('Subject: Invoice');
    const download = await t.http.get(`/api/v1/emails/${sent.id}/attachments/${attachment.id}`);
    expect(download.status).toBe(200);
    expect(download.text).toBe('total: 42');

    const [delivery] = await receiver.waitFor(1, (r) => r.json().id === sent.id);
    expect(delivery?.json()).toMatchObject({
      id: sent.id,
      usesCustomStorage: true,
      storagePath: `${folder}message.eml`,
      storageConfig: { provider: 'S3', bucket: BUCKET },
      attachments: [{ id: attachment.id, filename: 'invoice 2026.txt', storagePath: `${folder}attachments/${attachment.id}/invoice 2026.txt` }],
    });
  });

  it('keeps the credentials only encrypted in the database', async () => {
    const rows = await t.app.ctx.db.kysely.selectFrom('storage_configs').select('credentials_sealed').execute();
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) expect(row.credentials_sealed).not.toContain('S3RVER');
  });

  it('refuses a tenant whose plan has no custom storage (403)', async () => {
    const free = await t.createTenant('Free tenant', 'free');
    const response = await t.client(free.apiKey).put('/api/v1/storage', s3Body(s3.endpoint));
    expect(response.status).toBe(403);
    expect(response.json().code).toBe('CUSTOM_STORAGE_NOT_IN_PLAN');
    expect((await t.client(free.apiKey).get('/api/v1/storage')).status).toBe(404);
  });

  it('answers 400 with the provider\'s error when the probe write fails, and names bad fields', async () => {
    const noBucket = await t.http.put('/api/v1/storage', s3Body(s3.endpoint, 'no-such-bucket'));
    expect(noBucket.status).toBe(400);
    expect(noBucket.json()).toMatchObject({ code: 'STORAGE_CHECK_FAILED', message: expect.stringContaining('no-such-bucket') });
    const missingSecret = await t.http.put('/api/v1/storage', s3Body(s3.endpoint, BUCKET, { credentials: { accessKeyId: 'x' } }));
    expect(missingSecret.json()).toMatchObject({ statusCode: 400, code: 'INVALID_STORAGE_CONFIG', field: 'credentials.secretAccessKey' });
    const badProvider = await t.http.put('/api/v1/storage', s3Body(s3.endpoint, BUCKET, { provider: 'DROPBOX' }));
    expect(badProvider.status).toBe(400);
    expect(badProvider.json().field).toBe('provider');
    const badPrefix = await t.http.put('/api/v1/storage', s3Body(s3.endpoint, BUCKET, { prefix: 'a/../b' }));
    expect(badPrefix.json()).toMatchObject({ code: 'INVALID_STORAGE_CONFIG', field: 'prefix' });
    // The configuration from the first test is still the one in force.
    expect((await t.http.get('/api/v1/storage')).json()).toMatchObject({ bucket: BUCKET });
  });

  it('metadata only: no bodies or snippet in the database, the EML still downloadable from the bucket', async () => {
    expect((await t.http.put('/api/v1/storage', s3Body(s3.endpoint, BUCKET, { metadataOnly: true }))).status).toBe(200);
    const sent = await sendMail(t.smtpPort, { from: 'bob@example.com', to: address, subject: 'Private', text: 'secret words here' });
    const email = (await t.http.get(`/api/v1/emails/${sent.id}`)).json();
    expect(email.snippet).toBe('');
    const row = await t.app.ctx.db.kysely.selectFrom('emails').select(['text_body', 'html_body']).where('id', '=', sent.id).executeTakeFirstOrThrow();
    expect(row).toEqual({ text_body: null, html_body: null });
    expect((await t.http.get(`/api/v1/emails/${sent.id}/eml`)).text).toContain('secret words here');
  });

  it('switching storage applies to new mail; old mail stays readable where it is', async () => {
    const before = await sendMail(t.smtpPort, { from: 'a@example.com', to: address, subject: 'Before switch', text: 'one' });
    expect((await t.http.put('/api/v1/storage', s3Body(s3.endpoint, OTHER_BUCKET, { prefix: '' }))).status).toBe(200);
    const during = await sendMail(t.smtpPort, { from: 'a@example.com', to: address, subject: 'In the archive', text: 'two' });
    expect((await keysIn(s3Client, OTHER_BUCKET)).some((key) => key.startsWith(`${t.tenant.id}/`) && key.endsWith(`${during.id}/message.eml`))).toBe(true);
    expect((await t.http.delete('/api/v1/storage')).status).toBe(204);
    expect((await t.http.get('/api/v1/storage')).json().code).toBe('STORAGE_NOT_CONFIGURED');
    const after = await sendMail(t.smtpPort, { from: 'a@example.com', to: address, subject: 'Service store', text: 'three' });
    for (const [id, subject] of [[before.id, 'Before switch'], [during.id, 'In the archive'], [after.id, 'Service store']]) {
      expect((await t.http.get(`/api/v1/emails/${id}/eml`)).text).toContain(`Subject: ${subject}`);
    }
    expect((await keysIn(s3Client, BUCKET)).some((key) => key.includes(after.id))).toBe(false);
    // Deleting an email removes its objects from the bucket it is in.
    expect((await t.http.delete(`/api/v1/emails/${during.id}`)).status).toBe(204);
    expect((await keysIn(s3Client, OTHER_BUCKET)).some((key) => key.includes(during.id))).toBe(false);
  });

  it('an unreachable bucket: the sender gets 451, the activity log says why, nothing is stored', async () => {
    const doomed = await startS3rver([BUCKET]);
    const tenant = await t.createTenant('Doomed bucket');
    const client = t.client(tenant.apiKey);
    const inbox = (await client.post('/api/v1/inboxes', { prefix: 'doomed' })).json();
    expect((await client.put('/api/v1/storage', s3Body(doomed.endpoint))).status).toBe(200);
    await doomed.close();

    const refused = await refusedWith(sendMail(t.smtpPort, { from: 'c@example.com', to: inbox.address, subject: 'Lost?', text: 'x' }));
    expect(refused.code).toBe(451);
    const emails = (await client.get('/api/v1/emails')).json();
    expect(emails.totalItems).toBe(0);
    const logs = (await client.get('/api/v1/logs?type=SMTP_RECEIVED&status=FAILED')).json();
    expect(logs.data).toHaveLength(1);
    expect(logs.data[0].message).toContain(`S3 bucket "${BUCKET}" could not be written`);
  });

  it('GET/PUT/DELETE need a tenant-level key', async () => {
    const inbox = (await t.http.post('/api/v1/inboxes', { prefix: 'scoped' })).json();
    const key = (await t.http.post(`/api/v1/inboxes/${inbox.id}/api-keys`, { name: 'inbox key' })).json().key as string;
    expect((await t.client(key).get('/api/v1/storage')).status).toBe(403);
  });
});
