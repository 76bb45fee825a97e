/**
 * Credentials kept only sealed (AES-256-GCM, adapters/secrets/secret-box.ts) in the database: a
 * database dump or backup alone does not let anyone sign webhooks or post as a bot. Each is sealed
 * with its row's id as context, so a sealed value copied onto another row does not open there.
 */
export interface SecretSealer {
  seal(plaintext: string, context: string): string;
  open(sealed: string, context: string): string;
}

export const sealContext = {
  webhookSecret: (webhookId: string): string => `webhook-secret:${webhookId}`,
  botToken: (integrationId: string): string => `chatapp-bot-token:${integrationId}`,
};
