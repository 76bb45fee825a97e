import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AppConfig } from '../../config/config.js';
import { ConfigError } from '../../config/config.js';

export interface TlsMaterial {
  key: Buffer;
  cert: Buffer;
}

async function readPair(certPath: string, keyPath: string): Promise<TlsMaterial | undefined> {
  try {
    return { cert: await readFile(certPath), key: await readFile(keyPath) };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/**
 * The configured certificate, or a self-signed one made once and kept in the data dir so that
 * clients can pin it across restarts.
 */
export async function loadTlsMaterial(config: AppConfig): Promise<TlsMaterial> {
  if (config.tls !== undefined) {
    const pair = await readPair(config.tls.certPath, config.tls.keyPath);
    if (pair === undefined) throw new ConfigError('MAILROOM_TLS_CERT', `cannot read ${config.tls.certPath} or ${config.tls.keyPath}`);
    return pair;
  }
  const dir = join(config.dataDir, 'tls');
  const certPath = join(dir, 'self-signed.crt');
  const keyPath = join(dir, 'self-signed.key');
  const existing = await readPair(certPath, keyPath);
  if (existing !== undefined) return existing;
  const hosts = [...new Set(['localhost', config.mailDomain, config.mxHost])];
  // Loaded only to make the certificate, once per data dir: the X.509 libraries are some 7 MB of heap (D34).
  const { generate } = await import('selfsigned');
  const generated = await generate([{ name: 'commonName', value: config.mxHost }], {
    algorithm: 'sha256',
    keySize: 2048,
    notAfterDate: new Date(Date.now() + 5 * 365 * 24 * 3600 * 1000),
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames: [...hosts.map((value) => ({ type: 2 as const, value })), { type: 7, ip: '127.0.0.1' }, { type: 7, ip: '::1' }] },
    ],
  });
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await writeFile(keyPath, generated.private, { mode: 0o600 });
  await writeFile(certPath, generated.cert, { mode: 0o600 });
  return { key: Buffer.from(generated.private), cert: Buffer.from(generated.cert) };
}
