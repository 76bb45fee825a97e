import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { createDatabase, migrateToLatestOrThrow, type Db } from '../../src/adapters/db/database.js';
import { createRepositories, createUnitOfWork } from '../../src/adapters/db/repositories/index.js';
import { blobKeys } from '../../src/adapters/blobs/blob-keys.js';
import type { DatabaseConfig } from '../../src/config/config.js';
import { makeAuthSummary, makeSnippet, type Email } from '../../src/core/email.js';
import { spamFields } from '../../src/core/spam.js';
import { TenantService } from '../../src/services/tenant.service.js';

/** Each email its own code (as real verification mail has), so a search for one code finds one email. */
export const seededCode = (index: number): string => String(100_000 + ((index * 7919) % 900_000));
const textOf = (index: number) =>
  `Hello,\n\nYour verification code is ${seededCode(index)}. It expires in ten minutes.\n\n`.padEnd(1200, 'Lorem ipsum dolor sit amet. ');
const htmlOf = (text: string) => `<html><body><p>${text.replace(/\n/g, '<br>')}</p></body></html>`;

export interface SeededTenant {
  tenantId: string;
  environmentId: string;
  apiKey: string;
}

/** Rows written straight through the repositories (no SMTP), as ingest would write them, minus the blobs. */
export class EmailSeeder {
  private constructor(
    private readonly db: Db,
    readonly tenant: SeededTenant,
  ) {}

  static async open(config: DatabaseConfig): Promise<EmailSeeder> {
    const db = createDatabase(config);
    await migrateToLatestOrThrow(db);
    const tenants = new TenantService(createRepositories(db.kysely), createUnitOfWork(db.kysely));
    const created = await tenants.create({ name: 'list bench', plan: 'pro' });
    // The bench sends far more requests per minute than any plan allows.
    await tenants.setLimitOverrides(created.tenant.id, { requestsPerMinute: 100_000_000, monthlyEmails: null });
    return new EmailSeeder(db, { tenantId: created.tenant.id, environmentId: created.environmentId, apiKey: created.apiKey });
  }

  /** Inserts `count` emails, 1,000 per transaction, created one second apart so sort order is stable. */
  async insert(count: number, startIndex: number): Promise<void> {
    const unitOfWork = createUnitOfWork(this.db.kysely);
    for (let done = 0; done < count; done += 1000) {
      const batch = Math.min(1000, count - done);
      await unitOfWork(async (repos) => {
        await repos.emails.insertMany(Array.from({ length: batch }, (_, i) => this.newEmail(startIndex + done + i)));
      });
    }
  }

  /**
   * PostgreSQL: what autovacuum does within a minute of a bulk load in production. Without it the
   * freshly written pages have no visibility map, `count(*)` cannot use an index-only scan, and the
   * bench would time an artefact of its own seeding.
   */
  async settle(): Promise<void> {
    if (this.db.dialect === 'postgres') await sql`vacuum analyze emails`.execute(this.db.kysely);
  }

  close(): Promise<void> {
    return this.db.close();
  }

  private newEmail(index: number) {
    const id = randomUUID();
    const at = new Date(Date.UTC(2026, 0, 1) + index * 1000).toISOString();
    const text = textOf(index);
    const email: Email = {
      id,
      tenantId: this.tenant.tenantId,
      environmentId: this.tenant.environmentId,
      baseEmailId: id,
      messageId: `<${id}@sender.example>`,
      from: `sender${index % 500}@sender.example`,
      to: [`user${index % 2000}@mailroom.localhost`],
      cc: [],
      bcc: [],
      subject: `Your verification code #${index}`,
      date: at,
      read: index % 3 === 0,
      hasAttachments: false,
      attachments: [],
      snippet: makeSnippet(text),
      spfResult: 'pass',
      dkimResult: 'pass',
      dmarcResult: 'pass',
      authSummary: makeAuthSummary('pass', 'pass', 'pass'),
      authDiagnostics: {
        spf: { clientIp: '192.0.2.1', domain: 'sender.example', record: 'v=spf1 ip4:192.0.2.0/24 -all', explanation: null },
        dkim: [{ domain: 'sender.example', selector: 's1', result: 'pass', aligned: true, explanation: null }],
        dmarc: { domain: 'sender.example', policy: 'reject', spfAligned: true, dkimAligned: true, explanation: null },
      },
      size: 4096,
      remoteAddress: '192.0.2.1',
      envelope: { mailFrom: `sender${index % 500}@sender.example`, helo: 'mail.sender.example' },
      ...spamFields({ state: 'off' }),
      createdAt: at,
      updatedAt: at,
    };
    return {
      email,
      textBody: text,
      htmlBody: htmlOf(text),
      headers: { from: email.from, to: email.to.join(', '), subject: email.subject, 'message-id': email.messageId ?? '' },
      emlKey: blobKeys.eml(email.tenantId, id, at),
      attachmentKeys: [],
    };
  }
}
