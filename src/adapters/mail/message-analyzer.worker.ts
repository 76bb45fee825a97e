/**
 * Entry point of one analysis worker thread (see worker-pool.message-analyzer.ts): builds the same
 * parser and authenticator the main thread would, from plain configuration, swaps in BufferBlob
 * (postal-mime's hot spot), and answers requests.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { InvalidInputError } from '../../core/errors.js';
import { createCachingNodeDnsResolver } from '../dns/node.dns-resolver.js';
import type { AnalyzeRequest, AnalyzeResponse, AnalyzerWorkerConfig } from './analyzer-protocol.js';
import { transferablesOf } from './analyzer-protocol.js';
import { installBufferBlob } from './buffer-blob.js';
import { InlineMessageAnalyzer } from './inline.message-analyzer.js';
import { MailauthAuthenticator } from './mailauth.authenticator.js';
import { PostalMimeParser } from './postal.mime-parser.js';

installBufferBlob();
const config = workerData as AnalyzerWorkerConfig;
const port = parentPort;
if (port === null) throw new Error('message-analyzer.worker must run as a worker thread');

const analyzer = new InlineMessageAnalyzer(
  new PostalMimeParser(),
  new MailauthAuthenticator(createCachingNodeDnsResolver(config.dns.servers, config.dns.timeoutMs), config.mxHost, config.authDeadlineMs),
  config.extraction,
  config.searchVectors,
);

port.on('message', ({ id, input }: AnalyzeRequest) => {
  const raw = input.raw instanceof Uint8Array ? Buffer.from(input.raw.buffer, input.raw.byteOffset, input.raw.byteLength) : input.raw;
  analyzer.analyze({ raw, clientIp: input.clientIp, helo: input.helo, mailFrom: input.mailFrom, searchCopies: input.searchCopies }).then(
    (analysis) => port.postMessage({ id, analysis } satisfies AnalyzeResponse, transferablesOf(analysis)),
    (error: unknown) => {
      const failure =
        error instanceof InvalidInputError
          ? { invalid: true, code: error.code, message: error.message }
          : { invalid: false, code: 'ANALYSIS_FAILED', message: error instanceof Error ? error.message : String(error) };
      port.postMessage({ id, failure } satisfies AnalyzeResponse);
    },
  );
});
port.postMessage({ ready: true } satisfies AnalyzeResponse);
