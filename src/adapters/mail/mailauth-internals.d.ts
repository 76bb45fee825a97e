/**
 * The two mailauth modules behind `dkimVerify` that the authenticator calls directly for an unsigned
 * message's header block (docs/decisions.md D52). mailauth has no `exports` map, so they can be
 * imported; its typings cover only the package's main entry, hence these declarations.
 */
declare module 'mailauth/lib/tools.js' {
  export interface ParsedHeaders {
    parsed: Array<{ key: string | null; casedKey: string | undefined; line: Buffer }>;
    original: Buffer;
  }
  export function parseHeaders(block: Buffer): ParsedHeaders;
}

declare module 'mailauth/lib/dkim/dkim-verifier.js' {
  import type { DKIMResult, DKIMVerifyOptions } from 'mailauth';
  import type { ParsedHeaders } from 'mailauth/lib/tools.js';

  /** A Writable stream in mailauth; only the two steps its `finish` runs once the headers are read are used here. */
  export class DkimVerifier {
    constructor(options: DKIMVerifyOptions);
    headerFrom: string[];
    envelopeFrom: string | false;
    results: DKIMResult[];
    arc: unknown;
    messageHeaders(headers: ParsedHeaders): Promise<void>;
    finalChunk(): Promise<void>;
  }
}
