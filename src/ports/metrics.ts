/** Why an SMTP message was not accepted, as a metric label: the SMTP reply code (e.g. "550", "452"). */
export type RefusalReason = string;

/**
 * The steps of one accepted message, for the latency histogram: `recipient` is one RCPT TO's
 * resolution; the others run between the end of DATA and the 250 (docs/operations.md).
 */
export type IngestStage = 'recipient' | 'analysis' | 'blobs' | 'rows';

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
  /** How long one step of an accepted message took (its share of the time to the 250). */
  ingestStage(stage: IngestStage, seconds: number): void;
  /** One group commit of ingests: how many messages it held and how long its transaction took. */
  ingestCommit(messages: number, seconds: number): void;
  messageRefused(reason: RefusalReason): void;
  httpRequest(route: string, method: string, status: number, seconds: number): void;
  deliveryAttempt(outcome: string): void;
  /** Gauges read at scrape time: SSE streams and IMAP sessions on this node, deliveries queued cluster-wide. */
  observe(gauges: { sseConnections?: GaugeSource; imapSessions?: GaugeSource; deliveryQueueDepth?: GaugeSource }): void;
  /** The exposition text and its content type. */
  render(): Promise<{ contentType: string; body: string }>;
}
