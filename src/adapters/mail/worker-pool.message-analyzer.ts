import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { InvalidInputError, UnavailableError } from '../../core/errors.js';
import type { AnalysisInput, MessageAnalysis, MessageAnalyzer } from '../../ports/message-analyzer.js';
import type { AnalyzeRequest, AnalyzeResponse, AnalyzerWorkerConfig } from './analyzer-protocol.js';

/**
 * Each worker's young generation: 8 MB of new space (two 4 MB semi-spaces) instead of V8's 32 MB.
 * An analysis allocates some 400 KB and keeps almost none of it, so a smaller nursery only means
 * more scavenges: 24 MB less RSS per worker for about 5% more CPU on the worker thread, none on
 * the main one (docs/decisions.md D34).
 */
const YOUNG_GENERATION_MB = 12;

interface Pending {
  resolve(analysis: MessageAnalysis): void;
  reject(error: Error): void;
}

interface Slot {
  worker: Worker;
  pending: Map<number, Pending>;
  /** The worker finished starting; one that dies before that is not restarted (it would only die again). */
  ready: boolean;
}

/**
 * The worker's entry module. Built code runs the compiled .js file; from src/ (development, tests)
 * the worker is a .ts file, so a small bootstrap registers the tsx loader in the new thread first
 * (on Node 20 a worker's `--import` hooks do not apply to its own entry module).
 */
function workerEntry(): URL {
  const worker = new URL(`./message-analyzer.worker.${import.meta.url.endsWith('.ts') ? 'ts' : 'js'}`, import.meta.url);
  if (worker.pathname.endsWith('.js')) return worker;
  const tsxApi = new URL('dist/esm/api/index.mjs', pathToFileURL(createRequire(import.meta.url).resolve('tsx/package.json'))).href;
  const bootstrap = `import { register } from ${JSON.stringify(tsxApi)}; register(); await import(${JSON.stringify(worker.href)});`;
  return new URL(`data:text/javascript,${encodeURIComponent(bootstrap)}`);
}

/**
 * Parses, authenticates and scans messages on `size` worker threads, so MIME parsing, DKIM hashing
 * and OTP extraction use the other cores while the main thread speaks SMTP and writes the database. Each message goes to the worker
 * with the fewest in flight; attachment bytes come back as transferred buffers, not copies. A
 * worker that dies fails only its own in-flight messages (UnavailableError: the sender retries)
 * and is replaced. Messages sent while workers start wait in their queues.
 */
export class WorkerPoolMessageAnalyzer implements MessageAnalyzer {
  private readonly slots: Slot[] = [];
  private readonly entry = workerEntry();
  private nextId = 1;
  private closed = false;

  get buildsSearchVectors(): boolean {
    return this.config.searchVectors;
  }

  constructor(
    size: number,
    private readonly config: AnalyzerWorkerConfig,
    private readonly onWorkerError: (error: unknown) => void,
  ) {
    if (size < 1) throw new RangeError('a worker pool needs at least one worker');
    for (let i = 0; i < size; i++) this.slots.push(this.spawn());
  }

  analyze(input: AnalysisInput): Promise<MessageAnalysis> {
    if (this.closed) return Promise.reject(new UnavailableError('ANALYZER_CLOSED', 'Message analysis is shutting down'));
    if (this.slots.length === 0) return Promise.reject(new UnavailableError('ANALYZER_UNAVAILABLE', 'No message analysis worker could start'));
    const slot = this.slots.reduce((best, s) => (s.pending.size < best.pending.size ? s : best));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      slot.pending.set(id, { resolve, reject });
      slot.worker.postMessage({ id, input } satisfies AnalyzeRequest);
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.slots.map((slot) => slot.worker.terminate()));
  }

  private spawn(): Slot {
    const worker = new Worker(this.entry, { workerData: this.config, resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB } });
    const slot: Slot = { worker, pending: new Map(), ready: false };
    worker.unref();
    worker.on('message', (response: AnalyzeResponse) => this.settle(slot, response));
    worker.on('error', this.onWorkerError);
    worker.once('exit', (code) => this.replace(slot, code));
    return slot;
  }

  private settle(slot: Slot, response: AnalyzeResponse): void {
    if ('ready' in response) {
      slot.ready = true;
      return;
    }
    const pending = slot.pending.get(response.id);
    if (pending === undefined) return;
    slot.pending.delete(response.id);
    if ('analysis' in response) return pending.resolve(response.analysis);
    const { invalid, code, message } = response.failure;
    pending.reject(invalid ? new InvalidInputError(code, message) : new UnavailableError(code, message));
  }

  private replace(slot: Slot, exitCode: number): void {
    const reason = this.closed ? 'Message analysis is shutting down' : `Message analysis worker stopped (exit code ${exitCode})`;
    for (const pending of slot.pending.values()) pending.reject(new UnavailableError('ANALYZER_UNAVAILABLE', reason));
    slot.pending.clear();
    this.slots.splice(this.slots.indexOf(slot), 1);
    if (this.closed) return;
    if (slot.ready) this.slots.push(this.spawn());
    else this.onWorkerError(new Error(`message analysis worker failed to start (exit code ${exitCode})`));
  }
}
