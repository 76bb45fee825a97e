import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

const KEY_BYTES = 32;
const IV_BYTES = 12;
const VERSION = 'v1';

/**
 * Seals small secrets (tenants' storage credentials) with AES-256-GCM. `context` is bound in as
 * additional authenticated data, so a ciphertext copied onto another row does not open there.
 * Format: v1.<iv>.<tag>.<ciphertext>, base64url parts.
 */
export class SecretBox {
  constructor(private readonly key: Buffer) {
    if (key.byteLength !== KEY_BYTES) throw new Error(`secret box key must be ${KEY_BYTES} bytes`);
  }

  seal(plaintext: string, context: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv).setAAD(Buffer.from(context, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [VERSION, iv, cipher.getAuthTag(), ciphertext].map((part) => (typeof part === 'string' ? part : part.toString('base64url'))).join('.');
  }

  /** Throws when the key is wrong or the ciphertext was altered (GCM authentication). */
  open(sealed: string, context: string): string {
    const [version, iv, tag, ciphertext] = sealed.split('.');
    if (version !== VERSION || iv === undefined || tag === undefined || ciphertext === undefined) throw new Error('not a sealed secret');
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'))
      .setAAD(Buffer.from(context, 'utf8'))
      .setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
  }
}

/**
 * The storage-credentials key: the configured one, or 32 random bytes written once into the data
 * dir (mode 0600). Several nodes must share one value, so multi-node setups set it explicitly.
 */
export async function loadStorageEncryptionKey(configured: Buffer | undefined, dataDir: string): Promise<Buffer> {
  if (configured !== undefined) return configured;
  const path = join(dataDir, 'storage-encryption-key');
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  try {
    await writeFile(path, randomBytes(KEY_BYTES).toString('base64'), { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  return Buffer.from((await readFile(path, 'utf8')).trim(), 'base64');
}
