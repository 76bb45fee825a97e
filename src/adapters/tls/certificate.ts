import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { generate } from 'selfsigned';
import type { AppConfig } from '../../config/config.js';
import { ConfigError } from '../../config/config.js';

/** selfsigned is CommonJS: the thread requires it by its resolved path. */
const GENERATOR_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
require(workerData.selfsigned).generate(workerData.attributes, workerData.options)
  .then((pems) => parentPort.postMessage({ private: pems.private, cert: pems.cert }));
`;

/**
 * selfsigned's generate() on a thread of its own that then ends: its X.509 libraries (some 7 MB of
 * heap, D34) are loaded there and freed with the thread instead of staying in the server's heap for
 * its lifetime (D59). A failure in the thread rejects (the worker's 'error' event).
 */
function generateOnThread(...[attributes, options]: Parameters<typeof generate>): Promise<{ private: string; cert: string }> {
  const selfsigned = createRequire(import.meta.url).resolve('selfsigned');
  return new Promise((resolve, reject) => {
    const worker = new Worker(GENERATOR_SOURCE, { eval: true, workerData: { selfsigned, attributes, options } });
    worker.once('message', resolve);
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the certificate thread exited (${code}) without a certificate`)));
  });
}

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
  const generated = await generateOnThread([{ name: 'commonName', value: config.mxHost }], {
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
