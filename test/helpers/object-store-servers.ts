import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';

const require = createRequire(import.meta.url);

/** Azurite's fixed development account (documented by Microsoft; not a secret). */
export const AZURITE_ACCOUNT = 'devstoreaccount1';
export const AZURITE_KEY = 'Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==';

export interface RunningServer {
  endpoint: string;
  close(): Promise<void>;
}

interface S3rverInstance {
  run(): Promise<AddressInfo>;
  close(): Promise<void>;
}
type S3rverConstructor = new (options: Record<string, unknown>) => S3rverInstance;

/** s3rver (an S3 API on the file system) on an ephemeral loopback port, with these buckets created. */
export async function startS3rver(buckets: string[]): Promise<RunningServer> {
  const S3rver = require('s3rver') as S3rverConstructor;
  const directory = await mkdtemp(join(tmpdir(), 'mailroom-s3rver-'));
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory, configureBuckets: buckets.map((name) => ({ name })) });
  const address = await server.run();
  return {
    endpoint: `http://127.0.0.1:${address.port}`,
    async close() {
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}

/** azurite-blob (Microsoft's emulator) as a child process on an ephemeral loopback port, in memory. */
export async function startAzurite(): Promise<RunningServer & { connectionString: string }> {
  const bin = join(require.resolve('azurite/package.json'), '..', 'dist', 'src', 'blob', 'main.js');
  const cwd = await mkdtemp(join(tmpdir(), 'mailroom-azurite-'));
  const child = spawn(process.execPath, [bin, '--blobHost', '127.0.0.1', '--blobPort', '0', '--inMemoryPersistence', '--skipApiVersionCheck', '--disableTelemetry', '--silent'], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  const endpoint = await new Promise<string>((resolve, reject) => {
    let output = '';
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listens on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (match) resolve(`${match[1]}/${AZURITE_ACCOUNT}`);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => reject(new Error(`azurite exited (${code}): ${output}`)));
  });
  return {
    endpoint,
    connectionString: `DefaultEndpointsProtocol=http;AccountName=${AZURITE_ACCOUNT};AccountKey=${AZURITE_KEY};BlobEndpoint=${endpoint};`,
    async close() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
      await rm(cwd, { recursive: true, force: true });
    },
  };
}
