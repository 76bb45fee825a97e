/** Why an SMTP message was not accepted, as a metric label: the SMTP reply code (e.g. "550", "452"). */
export type RefusalReason = string;

/** A number read when metrics are scraped (connections open now, jobs queued now). */
export type GaugeSource = () => number | Promise<number>;

/**
 * What the edges report about the work they do (docs/operations.md lists the metric names). The
 * composition root creates one; protocol edges call these hooks and never see the metrics library.
 */
export interface Metrics {
  smtpSessionOpened(): void;
  smtpSessionClosed(): void;
  /** An email durably stored and answered 250; `seconds` from end of DATA to the commit. */
  messageAccepted(seconds: number): void;
  messageRefused(reason: RefusalReason): void;
  httpRequest(route: string, method: string, status: number, seconds: number): void;
  deliveryAttempt(outcome: string): void;
  /** Gauges read at scrape time: SSE streams and IMAP sessions on this node, deliveries queued cluster-wide. */
  observe(gauges: { sseConnections?: GaugeSource; imapSessions?: GaugeSource; deliveryQueueDepth?: GaugeSource }): void;
  /** The exposition text and its content type. */
  render(): Promise<{ contentType: string; body: string }>;
}
