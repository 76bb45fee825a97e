import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DIALECTS, warnIfPostgresSkipped } from '../../helpers/databases.js';
import { RawSmtpClient } from '../../helpers/raw-smtp.js';
import { sendMail } from '../../helpers/smtp-client.js';
import { storedState } from '../../helpers/stored-state.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';

warnIfPostgresSkipped();

/** The defaults under test: MAILROOM_SMTP_MAX_RECIPIENTS and MAILROOM_MAX_ATTACHMENTS_PER_MESSAGE. */
const MAX_RECIPIENTS = 100;
const MAX_ATTACHMENTS = 1000;

const tinyAttachments = (count: number) => Array.from({ length: count }, (_, i) => ({ filename: `part-${i}.txt`, content: `attachment ${i}` }));

describe.each(TEST_DIALECTS)('SMTP recipient and attachment limits (%s)', (dialect) => {
  let t: TestApp;
  let addresses: string[];

  beforeAll(async () => {
    t = await startTestApp({ dialect });
    addresses = [];
    for (let i = 0; i <= MAX_RECIPIENTS; i++) addresses.push((await t.http.post('/api/v1/inboxes', {})).json().address);
  }, 60_000);
  afterAll(() => t?.stop());

  it('refuses the 101st recipient with 452 4.5.3 and delivers to the first 100 (nodemailer)', async () => {
    const sent = await sendMail(t.smtpPort, { from: 'sender@example.com', to: addresses, subject: 'many recipients', text: 'hello' });
    const delivered = await t.app.ctx.db.kysely.selectFrom('inbox_messages').select('inbox_id').where('email_id', '=', sent.id).execute();
    expect(delivered).toHaveLength(MAX_RECIPIENTS);

    const { client } = await RawSmtpClient.connect(t.smtpPort);
    await client.envelope('sender@example.com', addresses.slice(0, MAX_RECIPIENTS));
    const refused = await client.command(`RCPT TO:<${addresses[MAX_RECIPIENTS]}>`);
    expect(refused.code).toBe(452);
    expect(refused.text).toBe('4.5.3 Too many recipients');
    await client.quit();
  }, 60_000);

  it('collapses repeated RCPT TO addresses: counted and stored once', async () => {
    const [first, second] = addresses as [string, string];
    const { client } = await RawSmtpClient.connect(t.smtpPort);
    await client.envelope('sender@example.com', [first, ...Array.from({ length: 500 }, () => first.toUpperCase()), second]);
    const reply = await client.data(`From: sender@example.com\r\nTo: ${first}\r\nSubject: duplicates\r\n\r\nhello\r\n`);
    await client.quit();
    expect(reply.code, reply.text).toBe(250);
    const id = /<([0-9a-f-]{36})>/.exec(reply.text)?.[1] as string;
    const email = (await t.http.get(`/api/v1/emails/${id}`)).json();
    expect(email.to).toEqual([first]);
    expect(email.bcc).toEqual([second]);
    const inboxMessages = await t.app.ctx.db.kysely.selectFrom('inbox_messages').select('inbox_id').where('email_id', '=', id).execute();
    expect(inboxMessages).toHaveLength(2);
  });

  it('stores a message with 999 attachments (rows inserted in batches under the driver variable limit)', async () => {
    const sent = await sendMail(t.smtpPort, { from: 'sender@example.com', to: addresses[0], subject: '999 attachments', text: 'many', attachments: tinyAttachments(999) });
    const email = (await t.http.get(`/api/v1/emails/${sent.id}`)).json();
    expect(email.attachments).toHaveLength(999);
    expect(email.attachments[998].filename).toBe('part-998.txt');
  }, 60_000);

  it('refuses a message with 1,001 attachments with 552 5.3.4 and leaves no rows or blob files', async () => {
    const before = await storedState(t);
    const refused = sendMail(t.smtpPort, { from: 'sender@example.com', to: addresses[0], subject: 'too many', text: 'many', attachments: tinyAttachments(MAX_ATTACHMENTS + 1) });
    await expect(refused).rejects.toMatchObject({ responseCode: 552, response: expect.stringMatching(/^552 5\.3\.4 Message has 1001 attachments; the limit is 1000/) });
    expect(await storedState(t)).toEqual(before);
  }, 60_000);
});
