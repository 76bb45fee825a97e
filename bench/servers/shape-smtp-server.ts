/**
 * A model of Mailroom's ingest with its work replaced by loops of a fixed length, so that how the work is laid
 * out over threads and processes can be measured apart from what the work is (bench:shape,
 * docs/decisions.md D80). smtp-server on the main thread reads each message; then, as Mailroom does:
 * the bytes are appended to a file and fdatasynced on libuv's pool while an analysis worker spins
 * for SHAPE_WORKER_US; the main thread spins SHAPE_MAIN_US for what it does per message; the
 * message waits for a group commit, which spins SHAPE_COMMIT_FIXED_US + SHAPE_COMMIT_PER_US per
 * message and answers all of its messages at once. The group waits up to SHAPE_WINDOW_MS (Mailroom's default unless set) for
 * messages still on their way, as Mailroom's batch commit does.
 *
 * Layout settings: SHAPE_WORKERS analysis workers (round robin), SHAPE_COMMIT_THREAD=1 to spin the
 * commit on a thread of its own, SHAPE_PROCESSES=N to run N such servers on one port (node:cluster),
 * SHAPE_MAX_BATCH=N to cap a group commit at N messages, SHAPE_STEAL_AT=N for the main thread to spin
 * an analysis itself while the worker has N, SHAPE_SMTP_THREADS=N for N more smtp-servers on worker
 * threads sharing the listening socket (docs/decisions.md D92).
 * Prints `listening on PORT`, and on SIGTERM `accepted N` over all processes.
 */
import cluster from 'node:cluster';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { SMTPServer } from 'smtp-server';
import { DEFAULT_BATCH_WINDOW_MS, MAX_BATCH } from '../../src/adapters/db/group-commit.js';
import { PLAIN_SMTP_OPTIONS, plainSmtpOptionsGreetingAfter } from './plain-smtp-options.js';

function setting(name: string, fallback: number, least = 0): number {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(value) || value < least) throw new Error(`${name} must be a whole number of at least ${least}`);
  return value;
}

const MAIN_US = setting('SHAPE_MAIN_US', 0);
const WORKER_US = setting('SHAPE_WORKER_US', 0);
const COMMIT_FIXED_US = setting('SHAPE_COMMIT_FIXED_US', 0);
const COMMIT_PER_US = setting('SHAPE_COMMIT_PER_US', 0);
const WINDOW_MS = setting('SHAPE_WINDOW_MS', DEFAULT_BATCH_WINDOW_MS);
const WORKERS = setting('SHAPE_WORKERS', 1, 1);
const COMMIT_THREAD = setting('SHAPE_COMMIT_THREAD', 0) === 1;
const PROCESSES = setting('SHAPE_PROCESSES', 1, 1);
const BATCH_LIMIT = setting('SHAPE_MAX_BATCH', MAX_BATCH, 1);
const STEAL_AT = setting('SHAPE_STEAL_AT', 0);
const SMTP_THREADS = setting('SHAPE_SMTP_THREADS', 0);
/** Where the appended file goes; without it nothing is written. */
const DIRECTORY = process.env.SHAPE_DIR;

/**
 * The model's stand-in for real work: a loop whose length is fixed in iterations, calibrated once
 * at start, so that like real work it costs the same CPU whether or not the thread is preempted
 * (a loop until a wall-clock deadline would cost less CPU on a busy machine than on a quiet one).
 */
const CHURN = `
let sink = 0;
function churn(iterations) {
  let x = sink;
  for (let i = 0; i < iterations; i++) x = (x * 31 + i) | 0;
  sink = x;
}`;
const { churn } = new Function(`${CHURN}; return { churn };`)() as { churn: (iterations: number) => void };

/** Iterations of churn per microsecond on this machine: the fastest of a few tries, since a try can only be slowed. */
function calibrate(): number {
  let best = 0;
  for (let attempt = 0; attempt < 20; attempt++) {
    const started = performance.now();
    churn(1_000_000);
    best = Math.max(best, 1_000_000 / ((performance.now() - started) * 1000));
  }
  return best;
}

const ITERATIONS_PER_US = calibrate();
const spin = (us: number) => churn(Math.round(us * ITERATIONS_PER_US));

/** A thread that spins for the microseconds it is sent, then answers with the message's id. */
const SPINNER = `
const { parentPort, workerData } = require('node:worker_threads');
${CHURN}
parentPort.on('message', ({ id, us }) => {
  churn(Math.round(us * workerData));
  parentPort.postMessage(id);
});`;

/** Round robin over `count` spinning threads; resolves when the thread is done. */
function spinners(count: number): (us: number, bytes?: Buffer) => Promise<void> {
  const threads = Array.from({ length: count }, () => new Worker(SPINNER, { eval: true, workerData: ITERATIONS_PER_US }));
  const waiting = new Map<number, () => void>();
  for (const thread of threads) {
    thread.unref();
    thread.on('message', (id: number) => {
      waiting.get(id)?.();
      waiting.delete(id);
    });
  }
  let next = 0;
  return (us, bytes) =>
    new Promise((resolve) => {
      const id = next++;
      waiting.set(id, resolve);
      // The bytes go along, as Mailroom's message does to its analysis worker: the copy is part of the cost.
      (threads[id % count] as Worker).postMessage({ id, us, bytes });
    });
}

async function serve(): Promise<void> {
  const onWorker = spinners(WORKERS);
  let atWorker = 0;
  const analyse = async (us: number, bytes: Buffer) => {
    if (STEAL_AT > 0 && atWorker >= STEAL_AT) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      spin(us);
      return;
    }
    atWorker++;
    await onWorker(us, bytes);
    atWorker--;
  };
  const commitOnThread = COMMIT_THREAD ? spinners(1) : undefined;
  const file = DIRECTORY === undefined ? undefined : await open(join(DIRECTORY, `segment-${process.pid}`), 'a');
  let onTheirWay = 0;
  let accepted = 0;
  let queue: Array<() => void> = [];
  let draining = false;
  let window: NodeJS.Timeout | undefined;

  const drain = async () => {
    clearTimeout(window);
    window = undefined;
    draining = true;
    while (queue.length > 0) {
      const batch = queue.slice(0, BATCH_LIMIT);
      queue = queue.slice(batch.length);
      const us = COMMIT_FIXED_US + COMMIT_PER_US * batch.length;
      if (commitOnThread === undefined) spin(us);
      else await commitOnThread(us);
      for (const answer of batch) answer();
    }
    draining = false;
  };
  const commit = () =>
    new Promise<void>((resolve) => {
      queue.push(resolve);
      if (draining || window !== undefined) return;
      if (onTheirWay === 0) setImmediate(() => void drain());
      else window = setTimeout(() => void drain(), WINDOW_MS);
    });
  const append = async (bytes: Buffer) => {
    if (file === undefined) return;
    await file.write(bytes);
    await file.datasync();
  };

  const ingest = async (bytes: Buffer) => {
    onTheirWay++;
    await Promise.all([analyse(WORKER_US, bytes), append(bytes)]);
    onTheirWay--;
    await commit();
    accepted++;
  };
  const server = new SMTPServer({
    // Mailroom greets at once by default.
    ...plainSmtpOptionsGreetingAfter(0),
    onData(stream, _session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.once('end', () => {
        const bytes = Buffer.concat(chunks);
        spin(MAIN_US);
        void ingest(bytes).then(() => callback(null, 'Message accepted'));
      });
    },
  });
  server.listen(0, '127.0.0.1', () => {
    const address = server.server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    const fd = (server.server as unknown as { _handle: { fd: number } })._handle.fd;
    for (let i = 0; i < SMTP_THREADS; i++) smtpThread(fd, ingest);
    if (process.send) process.send({ port });
    else console.log(`listening on ${port}`);
  });
  process.once('SIGTERM', () => {
    if (process.send) process.send({ accepted }, () => process.exit(0));
    else {
      console.log(`accepted ${accepted}`);
      if (SMTP_THREADS > 0) console.log(`from SMTP threads ${fromSmtpThreads}`);
      process.exit(0);
    }
  });
}

/**
 * An smtp-server of its own on a worker thread, listening on the main thread's listening socket (a
 * descriptor is the process's, so `listen({ fd })` shares it and the kernel gives each connection to
 * one of the threads). It spins SHAPE_MAIN_US per message there and hands the bytes to the main
 * thread, which analyses, appends and commits them as its own, then answers.
 */
const SMTP_THREAD = `
const { parentPort, workerData } = require('node:worker_threads');
const { SMTPServer } = require(workerData.smtpServer);
const { SMTPConnection } = require(workerData.smtpConnection);
${CHURN}
// greeting-delay.ts's patch with a pause of 0, written out: an eval'd thread cannot import that TypeScript module.
SMTPConnection.prototype.init = function () { this._setListeners(() => setImmediate(() => this.connectionReady())); };
const waiting = new Map();
let next = 0;
parentPort.on('message', (id) => { waiting.get(id)(); waiting.delete(id); });
const server = new SMTPServer({
  ...workerData.options,
  onData(stream, _session, callback) {
    const chunks = [];
    stream.on('data', (chunk) => chunks.push(chunk));
    stream.once('end', () => {
      const bytes = Buffer.concat(chunks);
      churn(Math.round(workerData.mainUs * workerData.perUs));
      const id = next++;
      waiting.set(id, () => callback(null, 'Message accepted'));
      parentPort.postMessage({ id, bytes });
    });
  },
});
server.listen({ fd: workerData.fd });`;

/** Messages the SMTP threads handed over: the kernel's share of connections for them. */
let fromSmtpThreads = 0;

function smtpThread(fd: number, ingest: (bytes: Buffer) => Promise<void>): void {
  const require = createRequire(import.meta.url);
  const thread = new Worker(SMTP_THREAD, {
    eval: true,
    workerData: { fd, options: PLAIN_SMTP_OPTIONS, mainUs: MAIN_US, perUs: ITERATIONS_PER_US, smtpServer: require.resolve('smtp-server'), smtpConnection: require.resolve('smtp-server/lib/smtp-connection.js') },
  });
  thread.unref();
  thread.on('message', ({ id, bytes }: { id: number; bytes: Uint8Array }) => {
    fromSmtpThreads++;
    void ingest(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)).then(() => thread.postMessage(id));
  });
}

/** The primary of SHAPE_PROCESSES servers: node:cluster hands each connection to one of them. */
function supervise(): void {
  const children = Array.from({ length: PROCESSES }, () => cluster.fork());
  let listening = 0;
  let accepted = 0;
  let reported = 0;
  for (const child of children) {
    child.on('message', (message: { port?: number; accepted?: number }) => {
      if (message.port !== undefined && ++listening === PROCESSES) console.log(`listening on ${message.port}`);
      if (message.accepted !== undefined) {
        accepted += message.accepted;
        if (++reported === PROCESSES) {
          console.log(`accepted ${accepted}`);
          process.exit(0);
        }
      }
    });
  }
  process.once('SIGTERM', () => {
    for (const child of children) child.process.kill('SIGTERM');
  });
}

if (PROCESSES > 1 && cluster.isPrimary) supervise();
else await serve();
