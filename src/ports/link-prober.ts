/** Why a link gave no usable answer. */
export const LINK_ERROR_KINDS = ['blocked', 'invalid-url', 'dns', 'connection', 'tls', 'timeout', 'too-many-redirects'] as const;
export type LinkErrorKind = (typeof LINK_ERROR_KINDS)[number];

export interface LinkHop {
  url: string;
  method: 'HEAD' | 'GET';
  statusCode: number;
}

export interface LinkProbe {
  url: string;
  /** The last URL asked (after redirects); the URL itself when there were none. */
  finalUrl: string;
  /** The final answer's status; null when no final answer came (see `error`). */
  statusCode: number | null;
  /** The redirects followed, in order: each answered with a 3xx pointing further. */
  redirects: LinkHop[];
  error: { kind: LinkErrorKind; message: string } | null;
  durationMs: number;
}

/**
 * Follows one URL the way a mail reader's click would: HEAD first (GET when HEAD is refused),
 * redirects followed to a limit, one deadline for the whole chain, and every hop through the egress
 * policy. Never throws: every failure is a result.
 */
export interface LinkProber {
  probe(url: string): Promise<LinkProbe>;
}
