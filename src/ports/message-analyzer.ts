import type { AuthResults } from '../core/email.js';
import type { Extraction } from '../core/extract.js';
import type { MessageBytes } from '../core/message-bytes.js';
import type { AuthenticationInput } from './mail-authenticator.js';
import type { ParsedMessage } from './mime-parser.js';

/** `extracted`: OTP codes and links found in the bodies (pure computation, but regex-heavy, so it runs here too), within a time budget. */
export interface MessageAnalysis extends Extraction {
  parsed: ParsedMessage;
  auth: AuthResults;
  /** PostgreSQL only: each `searchCopies` entry's search tsvector text, in their order (D57). */
  searchVectors?: string[];
}

/** One tenant's copy of the message as its search vector sees it: the envelope recipients it is for, and whether its body is stored. */
export interface SearchCopy {
  deliveryAddresses: string[];
  withBody: boolean;
}

/**
 * A spooled message is read from its file where the analysis runs (a worker reads it itself).
 * `searchCopies`: the copies whose search vectors an analyzer built for PostgreSQL computes beside the
 * analysis, off the main thread (D57); an analyzer for SQLite ignores them.
 */
export type AnalysisInput = Omit<AuthenticationInput, 'raw'> & { raw: MessageBytes; searchCopies?: SearchCopy[] };

/**
 * The CPU-heavy half of ingest: MIME parsing, SPF/DKIM/DMARC and artefact extraction for one message, on this thread or
 * on a pool of worker threads. Rejects with an InvalidInputError when the message cannot be parsed
 * (the sender gets 5xx) and with an UnavailableError when the analysis could not run (4xx: retry).
 */
export interface MessageAnalyzer {
  /** Whether it builds search vectors (PostgreSQL): only then are `searchCopies` worth sending. */
  readonly buildsSearchVectors: boolean;
  analyze(input: AnalysisInput): Promise<MessageAnalysis>;
  /** Releases threads; in-flight analyses are refused with UnavailableError. */
  close(): Promise<void>;
}
