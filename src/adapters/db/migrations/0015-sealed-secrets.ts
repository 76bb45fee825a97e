import type { Kysely } from 'kysely';
import { sealContext, type SecretSealer } from '../../../core/sealed-secrets.js';
import type { Database } from '../schema.js';
import type { Dialect, MigrationContext } from '../database.js';

/**
 * Webhook signing secrets and chat-app bot tokens were stored in plain text; from here on they are
 * sealed (core/sealed-secrets.ts). This seals the rows written before, each with its row's context.
 */
export async function up(db: Kysely<unknown>, _dialect: Dialect, context: MigrationContext): Promise<void> {
  const typed = db as unknown as Kysely<Database>;
  const webhooks = await typed.selectFrom('webhooks').select(['id', 'secret']).execute();
  const integrations = await typed.selectFrom('chatapp_integrations').select(['id', 'bot_token']).where('bot_token', 'is not', null).execute();
  if (webhooks.length + integrations.length === 0) return;
  const sealer = requireSealer(context);
  for (const row of webhooks) {
    await typed.updateTable('webhooks').set({ secret: sealer.seal(row.secret, sealContext.webhookSecret(row.id)) }).where('id', '=', row.id).execute();
  }
  for (const row of integrations) {
    const sealed = sealer.seal(row.bot_token as string, sealContext.botToken(row.id));
    await typed.updateTable('chatapp_integrations').set({ bot_token: sealed }).where('id', '=', row.id).execute();
  }
}

function requireSealer(context: MigrationContext): SecretSealer {
  if (context.sealer === undefined) throw new Error('sealing stored webhook secrets and bot tokens needs the encryption key (start the server once)');
  return context.sealer;
}
