import { createReadStream } from 'node:fs';
import { Agent as HttpAgent, request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { isSpooled, type MessageBytes } from '../../core/message-bytes.js';
import type { SpamReport, SpamRule } from '../../core/spam.js';
import { SpamFilterUnavailableError, type SpamFilter, type SpamFilterInput } from '../../ports/spam-filter.js';

/** rspamd's JSON for one matched symbol (POST /checkv2). */
interface RspamdSymbol {
  name?: unknown;
  score?: unknown;
  description?: unknown;
  options?: unknown;
}

/** A scan result of a few dozen symbols is a few KB; anything far larger is not an rspamd answer. */
const MAX_RESPONSE_BYTES = 1024 * 1024;

const isNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);

function toRule(key: string, symbol: RspamdSymbol): SpamRule {
  return {
    name: typeof symbol.name === 'string' ? symbol.name : key,
    score: isNumber(symbol.score) ? symbol.score : 0,
    description: typeof symbol.description === 'string' ? symbol.description : null,
    options: Array.isArray(symbol.options) ? symbol.options.filter((o): o is string => typeof o === 'string') : [],
  };
}

/** rspamd's checkv2 answer → our report; rules with the largest effect first. */
export function parseRspamdResult(body: string): SpamReport {
  let json: { score?: unknown; required_score?: unknown; action?: unknown; symbols?: unknown };
  try {
    json = JSON.parse(body) as typeof json;
  } catch {
    throw new SpamFilterUnavailableError('rspamd answered with something other than JSON');
  }
  if (!isNumber(json.score) || !isNumber(json.required_score) || typeof json.action !== 'string') {
    throw new SpamFilterUnavailableError('rspamd answered without score, required_score and action');
  }
  const symbols = typeof json.symbols === 'object' && json.symbols !== null ? (json.symbols as Record<string, RspamdSymbol>) : {};
  const rules = Object.entries(symbols)
    .map(([key, symbol]) => toRule(key, symbol))
    .sort((a, b) => Math.abs(b.score) - Math.abs(a.score) || a.name.localeCompare(b.name));
  const score = Math.round(json.score * 100) / 100;
  return { score, threshold: json.required_score, isSpam: score >= json.required_score, action: json.action, rules };
}

/** Header values travel as-is: a CR or LF (never in a real address or HELO) would make node refuse the request. */
const headerSafe = (value: string) => value.replace(/[\r\n]/g, '');

/**
 * rspamd's normal worker over HTTP: POST <base>/checkv2 with the raw message, the envelope in the
 * headers rspamd reads (IP, Helo, From, one Rcpt per recipient), on keep-alive connections, with a
 * total deadline per request. The URL is the operator's (MAILROOM_SPAM_CHECK), so no egress guard.
 */
export class RspamdSpamFilter implements SpamFilter {
  private readonly agent: HttpAgent;
  private readonly endpoint: URL;

  constructor(baseUrl: string) {
    this.endpoint = new URL('checkv2', baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`);
    this.agent = this.endpoint.protocol === 'https:' ? new HttpsAgent({ keepAlive: true, maxSockets: 64 }) : new HttpAgent({ keepAlive: true, maxSockets: 64 });
  }

  check(input: SpamFilterInput, deadlineMs: number): Promise<SpamReport> {
    const headers: Record<string, string | string[]> = { 'content-length': String(input.raw.byteLength), helo: headerSafe(input.helo || 'unknown'), from: headerSafe(input.mailFrom) };
    if (input.clientIp !== '') headers.ip = input.clientIp;
    if (input.recipients.length > 0) headers.rcpt = input.recipients.map(headerSafe);
    const send = this.endpoint.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise((resolve, reject) => {
      const fail = (reason: string) => {
        clearTimeout(deadline);
        request.destroy();
        reject(new SpamFilterUnavailableError(reason));
      };
      const request = send(this.endpoint, { method: 'POST', agent: this.agent, headers });
      const deadline = setTimeout(() => fail(`rspamd did not answer within ${deadlineMs} ms`), deadlineMs);
      request.on('error', (error: NodeJS.ErrnoException) => fail(`rspamd could not be reached: ${error.code ?? error.message}`));
      request.on('response', (response) => {
        readBody(response)
          .then((body) => {
            clearTimeout(deadline);
            if (response.statusCode !== 200) throw new SpamFilterUnavailableError(`rspamd answered ${response.statusCode}`);
            resolve(parseRspamdResult(body));
          })
          .catch((error: Error) => fail(error.message));
      });
      sendBody(request, input.raw, fail);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

/** A spooled message streams from its file; the spool's owner deletes it only after this settles. */
function sendBody(request: ClientRequest, raw: MessageBytes, fail: (reason: string) => void): void {
  if (!isSpooled(raw)) {
    request.end(raw);
    return;
  }
  createReadStream(raw.path)
    .on('error', (error: NodeJS.ErrnoException) => fail(`spooled message unreadable: ${error.code ?? error.message}`))
    .pipe(request);
}

function readBody(response: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    response.on('data', (chunk: Buffer) => {
      size += chunk.byteLength;
      if (size > MAX_RESPONSE_BYTES) reject(new SpamFilterUnavailableError('rspamd answer too large'));
      else chunks.push(chunk);
    });
    response.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    response.on('error', reject);
  });
}
