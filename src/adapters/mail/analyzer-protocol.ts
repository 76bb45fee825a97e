import type { ExtractionLimits } from '../../core/extract.js';
import type { SpooledMessage } from '../../core/message-bytes.js';
import type { AnalysisInput, MessageAnalysis } from '../../ports/message-analyzer.js';

/** What a worker needs to build its own parser and authenticator: data only, no functions cross threads. */
export interface AnalyzerWorkerConfig {
  dns: { servers: string[]; timeoutMs: number };
  mxHost: string;
  /** Upper bound for all DNS lookups of one message together. */
  authDeadlineMs: number;
  extraction: ExtractionLimits;
  /** The database is PostgreSQL: build the search vectors (D57). */
  searchVectors: boolean;
}

export interface AnalyzeRequest {
  id: number;
  /** Bytes in shared memory (a small message), or the spool file the worker reads itself (a large one). */
  input: Omit<AnalysisInput, 'raw'> & { raw: Uint8Array | SpooledMessage };
}

export type AnalyzeResponse =
  /** Sent once, when the worker has built its parser and authenticator. */
  | { ready: true }
  | { id: number; analysis: MessageAnalysis }
  /** `invalid`: the message itself is at fault (5xx); otherwise the analysis failed (4xx, retry). */
  | { id: number; failure: { invalid: boolean; code: string; message: string } };

/**
 * The attachment bytes of an analysis, to move (not copy) across the thread boundary. Only buffers
 * an attachment owns whole are moved: a view into a shared one (Node's Buffer pool) is copied, as
 * transferring it would detach its neighbours (and Node 21+ refuses pooled buffers outright).
 */
export function transferablesOf(analysis: MessageAnalysis): ArrayBuffer[] {
  const buffers = new Set<ArrayBuffer>();
  for (const { content } of analysis.parsed.attachments) {
    const { buffer } = content;
    if (buffer instanceof ArrayBuffer && content.byteOffset === 0 && content.byteLength === buffer.byteLength) buffers.add(buffer);
  }
  return [...buffers];
}
