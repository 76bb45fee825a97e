import { isIP } from 'node:net';
import type { ARCData, ARCResult, DKIMResult, DNSResolver, DKIMVerifyOptions, DKIMVerifyResult, DMARCResult, SPFResult } from 'mailauth';
// The four verifiers from their own files: mailauth's index also loads signing, sealing, BIMI (SVG
// and VMC checks), MTA-STS and their dependencies, ~5 MB of heap in every isolate that authenticates (D49).
import { arc } from 'mailauth/lib/arc/index.js';
import { DkimVerifier } from 'mailauth/lib/dkim/dkim-verifier.js';
import { dkimVerify } from 'mailauth/lib/dkim/verify.js';
import { dmarc } from 'mailauth/lib/dmarc/index.js';
import { spf } from 'mailauth/lib/spf/index.js';
import { parseHeaders } from 'mailauth/lib/tools.js';
import { makeAuthSummary, type AuthDiagnostics, type AuthResults } from '../../core/email.js';
import type { AuthResult } from '../../core/vocab.js';
import type { DnsResolve } from '../../ports/dns-resolver.js';
import { resultCacheOf, type CachingDnsResolve, type DerivedResultCache } from '../dns/dns-answer-cache.js';
import type { AuthenticationInput, MailAuthenticator } from '../../ports/mail-authenticator.js';

/** mailauth spells a few results differently from the names we store. */
function normalise(result: string | undefined): AuthResult {
  switch (result) {
    case undefined:
    case 'skipped':
      return 'none';
    case 'temperr':
      return 'temperror';
    case 'pass':
    case 'fail':
    case 'softfail':
    case 'neutral':
    case 'none':
    case 'temperror':
    case 'permerror':
    case 'policy':
      return result;
    default:
      return 'neutral';
  }
}

/**
 * mailauth reports a body that no longer matches its signed hash as `neutral`. RFC 6376 §6.1.3 makes
 * that a PERMFAIL and RFC 8601 §2.7.1 reports a signature that failed verification as `fail`, which
 * is what a user checking a tampered message expects (docs/auth-conformance.md).
 */
function dkimSignatureResult(result: DKIMResult): AuthResult {
  if (result.status.result === 'neutral' && result.status.comment === 'body hash did not verify') return 'fail';
  return normalise(result.status.result);
}

/** When no signature passes, the most telling of the others decides the message's DKIM result. */
const DKIM_PRECEDENCE: AuthResult[] = ['pass', 'fail', 'temperror', 'permerror', 'policy', 'neutral', 'softfail', 'none'];

function dkimVerdict(results: DKIMResult[]): AuthResult {
  const seen = new Set(results.map(dkimSignatureResult));
  return DKIM_PRECEDENCE.find((result) => seen.has(result)) ?? 'none';
}

/** The parts of mailauth's `authenticate` result that Mailroom stores. */
export interface Checks {
  dkim: DKIMVerifyResult;
  spf: SPFResult | false;
  dmarc: DMARCResult | false;
}

function diagnostics(result: Checks, clientIp: string): AuthDiagnostics {
  const spf = result.spf || undefined;
  const dmarc = result.dmarc || undefined;
  return {
    spf: {
      clientIp: spf?.['client-ip'] ?? clientIp,
      domain: spf?.domain ?? null,
      record: spf?.rr ?? null,
      explanation: spf?.status.comment ?? null,
    },
    // An unsigned message gets one pseudo-result ("message not signed"); only real signatures are listed.
    dkim: (result.dkim.results ?? []).filter((r) => Boolean(r.signingDomain)).map((r) => ({
      domain: r.signingDomain ?? null,
      selector: r.selector ?? null,
      result: dkimSignatureResult(r),
      aligned: Boolean(r.status.aligned),
      explanation: r.status.comment ?? null,
    })),
    dmarc: {
      domain: dmarc?.domain ?? null,
      policy: dmarc?.policy ?? null,
      spfAligned: Boolean(dmarc?.alignment?.spf?.result),
      dkimAligned: Boolean(dmarc?.alignment?.dkim?.result),
      explanation: dmarc?.status.comment ?? dmarc?.error ?? null,
    },
  };
}

/** What Mailroom stores of mailauth's results. */
export function authResultsOf(result: Checks, clientIp: string): AuthResults {
  const spfResult = normalise(result.spf ? result.spf.status.result : 'none');
  const dkimResult = dkimVerdict(result.dkim.results ?? []);
  const dmarcResult = normalise(result.dmarc ? result.dmarc.status.result : 'none');
  return {
    spfResult,
    dkimResult,
    dmarcResult,
    authSummary: makeAuthSummary(spfResult, dkimResult, dmarcResult),
    authDiagnostics: diagnostics(result, clientIp),
  };
}

/** What a message gets when the checks could not finish: temperror for each, as RFC 8601 intends. */
export function temperrorResults(clientIp: string, reason: string): AuthResults {
  return {
    spfResult: 'temperror',
    dkimResult: 'temperror',
    dmarcResult: 'temperror',
    authSummary: makeAuthSummary('temperror', 'temperror', 'temperror'),
    authDiagnostics: {
      spf: { clientIp, domain: null, record: null, explanation: reason },
      dkim: [],
      dmarc: { domain: null, policy: null, spfAligned: false, dkimAligned: false, explanation: reason },
    },
  };
}

/** A header block naming any of these may carry a signature over the body (DKIM-Signature, ARC-Message-Signature, ARC-Seal). */
const SIGNATURE_HEADER = /dkim-signature|arc-/i;

/** Where the header block ends, empty line included, as mailauth's parser finds it (after LF or CRLF); -1 when there is none. */
function headerBlockEnd(raw: Buffer): number {
  const crlf = raw.indexOf('\n\r\n');
  const lf = (crlf === -1 ? raw : raw.subarray(0, crlf)).indexOf('\n\n');
  if (lf !== -1) return lf + 2;
  return crlf === -1 ? -1 : crlf + 3;
}

/**
 * The header block of a message no signature can cover, or null. Only DKIM and ARC signatures cover
 * the body (SPF reads the envelope, DMARC the From header), so for an unsigned message mailauth needs
 * its header block alone and does not walk the body byte by byte to normalise its line endings
 * (ensureLinebreaks, docs/decisions.md D32). Any header that merely mentions a signature keeps the
 * whole message.
 */
export function unsignedHeaderBlock(raw: Buffer): Buffer | null {
  const end = headerBlockEnd(raw);
  if (end === -1 || SIGNATURE_HEADER.test(raw.toString('latin1', 0, end))) return null;
  return raw.subarray(0, end);
}

/**
 * The block as mailauth's stream writes it before parsing (ensureLinebreaks): an LF gains a CR unless
 * the last byte before it that is not an LF is a CR, so the second LF of `\r\n\n` stays bare.
 */
const BARE_LF = /(?<!\r\n*)\n/g;
function withCrlf(block: Buffer): Buffer {
  const text = block.toString('latin1');
  const crlf = text.replace(BARE_LF, '\r\n');
  return crlf.length === text.length ? block : Buffer.from(crlf, 'latin1');
}

/**
 * `dkimVerify` of a header block, without its stream (docs/decisions.md D52). mailauth's
 * DkimVerifier is a Writable that looks for the end of the headers one byte at a time, copying a
 * small array per byte, then parses them (`messageHeaders`), hashes the body and checks signatures
 * (`finalChunk`): for a header block that ends in its blank line it runs exactly these two steps,
 * which are called here directly. The result is shaped as verify.js shapes it, `headers` and `arc`
 * not enumerable.
 */
export async function verifyHeaderBlock(block: Buffer, options: DKIMVerifyOptions): Promise<DKIMVerifyResult> {
  const headers = parseHeaders(withCrlf(block));
  const verifier = new DkimVerifier(options);
  await verifier.messageHeaders(headers);
  await verifier.finalChunk();
  const result = { headerFrom: verifier.headerFrom, envelopeFrom: verifier.envelopeFrom, results: verifier.results };
  return Object.defineProperties(result, {
    headers: { enumerable: false, configurable: false, writable: false, value: headers },
    arc: { enumerable: false, configurable: false, writable: false, value: verifier.arc },
  });
}

/** DKIM (and the ARC data) of a message: its header block alone when it is unsigned, mailauth's whole stream otherwise. */
function verifyDkim(raw: Buffer, options: DKIMVerifyOptions): Promise<DKIMVerifyResult> {
  const block = unsignedHeaderBlock(raw);
  return block === null ? dkimVerify(raw, options) : verifyHeaderBlock(block, options);
}

/** Our resolver keeps `dns.promises.resolve`'s contract, which mailauth's typings narrow to TXT's shape. */
const asMailauthResolver = (resolve: DnsResolve) => resolve as DNSResolver;

/** The HELO name SPF is given, as mailauth's `authenticate` derives it: the client IP when there is none, an IP in brackets. */
function heloForSpf(helo: string, clientIp: string): string {
  const name = helo || clientIp;
  return name && isIP(name) ? `[${name}]` : name;
}

/**
 * SPF, DKIM, ARC and DMARC as mailauth's `authenticate` runs them (same calls, same order, same
 * arguments), without the parts Mailroom does not read (Received chain, header text, BIMI), and with
 * SPF's and DMARC's results reused while the DNS answers they read are current (docs/decisions.md
 * D38): SPF depends on nothing but the client IP, HELO and MAIL FROM (and this MTA's name) and DNS;
 * DMARC with no passing DKIM signature on nothing but the From header, SPF's domain if it passed, the
 * ARC verdict and DNS. Signatures are verified for every message.
 */
export class MailauthAuthenticator implements MailAuthenticator {
  private readonly spfResults: DerivedResultCache<SPFResult>;
  private readonly dmarcResults: DerivedResultCache<DMARCResult | false>;

  constructor(
    /** A caching resolver's answers and derived results are reused; any other resolver is asked for every message. */
    private readonly resolver: DnsResolve | CachingDnsResolve,
    private readonly mta: string,
    /** Upper bound for all lookups of one message together. */
    private readonly deadlineMs: number,
  ) {
    this.spfResults = resultCacheOf(resolver);
    this.dmarcResults = resultCacheOf(resolver);
  }

  async authenticate(input: AuthenticationInput): Promise<AuthResults> {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), this.deadlineMs);
    });
    try {
      const result = await Promise.race([this.check(input), deadline]);
      if (result === undefined) return temperrorResults(input.clientIp, `checks did not finish within ${this.deadlineMs} ms`);
      return authResultsOf(result, input.clientIp);
    } catch (error) {
      return temperrorResults(input.clientIp, error instanceof Error ? error.message : String(error));
    } finally {
      clearTimeout(timer);
    }
  }

  private async check(input: AuthenticationInput): Promise<Checks> {
    const dkim = await verifyDkim(input.raw, { resolver: asMailauthResolver(this.resolver), sender: input.mailFrom });
    const spfResult = await this.spf(input.clientIp, heloForSpf(input.helo, input.clientIp), input.mailFrom);
    // mailauth hands dkimVerify's ARC data to arc() as is; its typings disagree only on `chain: false`.
    const arcResult = await arc(dkim.arc as ARCData, { resolver: asMailauthResolver(this.resolver) });
    return { dkim, spf: spfResult, dmarc: await this.dmarc(dkim, spfResult, arcResult) };
  }

  private spf(ip: string, helo: string, sender: string): Promise<SPFResult> {
    return this.spfResults(`${ip}\n${helo}\n${sender}`, (resolve) =>
      spf({ ip, helo, sender, mta: this.mta, resolver: asMailauthResolver(resolve) }),
    );
  }

  private dmarc(dkim: DKIMVerifyResult, spfResult: SPFResult, arcResult: ARCResult): Promise<DMARCResult | false> {
    const dkimDomains = dkim.results
      .filter((r) => r.status.result === 'pass')
      .map((r) => ({ id: r.id, domain: r.signingDomain, aligned: r.status.aligned, underSized: r.status.underSized }));
    const spfDomains = spfResult.status.result === 'pass' && spfResult.domain ? [spfResult.domain] : [];
    const check = (resolve: DnsResolve) =>
      dmarc({ headerFrom: dkim.headerFrom, spfDomains, dkimDomains, arcResult, resolver: asMailauthResolver(resolve) });
    // verifyDmarc reads the From domain after the first @, the passing SPF domain, the ARC verdict and DNS.
    const from = dkim.headerFrom.length === 1 ? dkim.headerFrom[0] : undefined;
    if (dkimDomains.length > 0 || from === undefined) return check(this.resolver);
    return this.dmarcResults(`${from.slice(from.indexOf('@') + 1)}\n${spfDomains.join(' ')}\n${arcResult.status.result}`, check);
  }
}
