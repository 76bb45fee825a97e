import { randomBytes, randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blobKeys } from '../../src/adapters/blobs/blob-keys.js';
import { sweepOrphanBlobs } from '../../src/services/orphan-blob-sweep.js';
import { TEST_DIALECTS, createPostgresDatabase } from '../helpers/databases.js';
import { startS3rver, type RunningServer } from '../helpers/object-store-servers.js';
import { sendMail } from '../helpers/smtp-client.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

const SERVICE_BUCKET = 'mailroom-service';
const CUSTOMER_BUCKET = 'customer-bucket';
const runnable = TEST_DIALECTS.includes('postgres');
if (!runnable) console.warn('SKIPPED: two Mailroom nodes sharing PostgreSQL and one S3 store (set MAILROOM_TEST_DATABASE_URL to run it)');

describe.runIf(runnable)('two nodes sharing PostgreSQL and one S3 service store', () => {
  let s3: RunningServer;
  let database: Awaited<ReturnType<typeof createPostgresDatabase>>;
  let a: TestApp;
  let b: TestApp;

  beforeAll(async () => {
    s3 = await startS3rver([SERVICE_BUCKET, CUSTOMER_BUCKET]);
    database = await createPostgresDatabase();
    const env = {
      MAILROOM_BLOB_URL: `s3://${SERVICE_BUCKET}/nodes`,
      MAILROOM_S3_ENDPOINT: s3.endpoint,
      MAILROOM_S3_FORCE_PATH_STYLE: '1',
      MAILROOM_S3_ACCESS_KEY_ID: 'S3RVER',
      MAILROOM_S3_SECRET_ACCESS_KEY: 'S3RVER',
      // Every node must open the credentials another node sealed.
      MAILROOM_STORAGE_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
      MAILROOM_STORAGE_ALLOW_PRIVATE_ENDPOINTS: '1',
    };
    a = await startTestApp({ dialect: 'postgres', databaseUrl: database.url, env });
    b = await startTestApp({ dialect: 'postgres', databaseUrl: database.url, env });
  });
  afterAll(async () => {
    await a?.stop();
    await b?.stop();
    await database?.drop();
    await s3?.close();
  });

  it("each node serves the other's emails and attachments from the shared store", async () => {
    const onB = b.client(a.tenant.apiKey);
    const address = (await a.http.post('/api/v1/inboxes', { prefix: 'shared' })).json().address;
    const viaA = await sendMail(a.smtpPort, { from: 'x@example.com', to: address, subject: 'Via A', text: 'a', attachments: [{ filename: 'a.txt', content: 'from A' }] });
    const viaB = await sendMail(b.smtpPort, { from: 'x@example.com', to: address, subject: 'Via B', text: 'b' });

    expect((await onB.get(`/api/v1/emails/${viaA.id}/eml`)).text).toContain('Subject: Via A');
    const attachment = (await onB.get(`/api/v1/emails/${viaA.id}`)).json().attachments[0];
    expect((await onB.get(`/api/v1/emails/${viaA.id}/attachments/${attachment.id}`)).text).toBe('from A');
    expect((await a.http.get(`/api/v1/emails/${viaB.id}/eml`)).text).toContain('Subject: Via B');
    const keys = await a.app.ctx.repos.storageConfigs.emailBlobKeys(a.tenant.id, viaB.id);
    expect(keys?.emlKey).toMatch(new RegExp(`^emails/${a.tenant.id}/\\d{4}-\\d{2}-\\d{2}/${viaB.id}\\.eml$`));
    expect(await a.app.ctx.blobs.exists(keys?.emlKey as string)).toBe(true);
  });

  it('custom storage set on one node is used by the other for new mail', async () => {
    // A tenant B has not cached yet (a node learns of a change within its 10 s cache; docs/storage.md).
    const tenant = await a.createTenant('Bucket owner');
    const onA = a.client(tenant.apiKey);
    const put = await onA.put('/api/v1/storage', {
      provider: 'S3',
      bucket: CUSTOMER_BUCKET,
      endpoint: s3.endpoint,
      forcePathStyle: true,
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    });
    expect(put.status).toBe(200);
    const address = (await onA.post('/api/v1/inboxes', { prefix: 'custom' })).json().address;
    const sent = await sendMail(b.smtpPort, { from: 'x@example.com', to: address, subject: 'Into the bucket', text: 'c' });
    expect((await onA.get(`/api/v1/emails/${sent.id}/eml`)).text).toContain('Subject: Into the bucket');
    expect(await a.app.ctx.blobs.exists(blobKeys.eml(tenant.id, sent.id, new Date().toISOString()))).toBe(false);
  });

  it('the orphan sweep deletes blobs without a row, in either layout, and keeps those with one', async () => {
    const leftByACrash = () => Buffer.from('left by a crash');
    const orphans = [
      // A file of the folder-per-email layout (a stream's put still makes a file), and a segment record.
      await a.app.ctx.blobs.put(`emails/${a.tenant.id}/${randomUUID()}/message.eml`, Readable.from([leftByACrash()]), 'message/rfc822'),
      await a.app.ctx.blobs.put(blobKeys.eml(a.tenant.id, randomUUID(), new Date().toISOString()), leftByACrash(), 'message/rfc822'),
    ];
    for (const orphan of orphans) expect(await a.app.ctx.blobs.exists(orphan)).toBe(true);
    const address = (await a.http.post('/api/v1/inboxes', { prefix: 'kept' })).json().address;
    const kept = await sendMail(a.smtpPort, { from: 'x@example.com', to: address, subject: 'Kept', text: 'k' });

    const young = await sweepOrphanBlobs({ blobs: a.app.ctx.blobs, storageConfigs: a.app.ctx.repos.storageConfigs, graceMs: 60_000 });
    expect(young).toBe(0);
    const deleted = await sweepOrphanBlobs({ blobs: a.app.ctx.blobs, storageConfigs: a.app.ctx.repos.storageConfigs, graceMs: 0 }, Date.now() + 1000);
    expect(deleted).toBe(2);
    for (const orphan of orphans) expect(await a.app.ctx.blobs.exists(orphan)).toBe(false);
    expect((await b.client(a.tenant.apiKey).get(`/api/v1/emails/${kept.id}/eml`)).text).toContain('Subject: Kept');
  });
});
