/** The outcome of one outbound POST; never thrown, so every attempt can be logged the same way. */
export interface HttpAttemptResult {
  /** The endpoint answered 2xx. */
  ok: boolean;
  statusCode: number | null;
  durationMs: number;
  /** Why there is no status (timeout, refused connection, TLS error, blocked destination), else null. */
  error: string | null;
  /** Retrying cannot help: the egress policy refused the destination, or the request could not be built (a bad header value). */
  blocked: boolean;
}

/**
 * The one seam through which Mailroom makes outbound HTTP requests to customer-supplied URLs
 * (webhooks, chat apps). Promises: a total time limit per request, no redirects followed, response
 * bodies read only up to a small cap, and (unless private destinations are allowed) no connection
 * to a loopback, private, link-local or metadata address, checked on the address actually connected to.
 */
export interface HttpSender {
  post(url: string, body: Buffer, headers: Record<string, string>): Promise<HttpAttemptResult>;
  /** Why `url` may not be a destination (unsupported scheme, unresolvable, blocked address), or undefined. */
  destinationProblem(url: string): Promise<string | undefined>;
}
