import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { GaugeSource, IngestStage, Metrics } from '../../ports/metrics.js';

/** Ingest runs from a few ms (small message, warm cache) to seconds (DNS-bound SPF/DKIM checks). */
const INGEST_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Its steps take from a tenth of a millisecond (a cached recipient) up. */
const STAGE_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 5];
const BATCH_BUCKETS = [1, 2, 4, 8, 16, 32, 64];
const HTTP_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10];

/** A gauge whose value is read from `source` at scrape time; 0 until a source is set. */
function sampledGauge(registry: Registry, name: string, help: string): (source: GaugeSource) => void {
  let source: GaugeSource = () => 0;
  new Gauge({
    name,
    help,
    registers: [registry],
    async collect() {
      this.set(await source());
    },
  });
  return (next) => {
    source = next;
  };
}

/**
 * How often the event-loop lag gauges are sampled (prom-client's default). Their percentiles are
 * intervals between samples, so an idle loop reads this much (docs/operations.md).
 */
export const EVENT_LOOP_SAMPLING_MS = 10;

/** Metrics in the Prometheus text format, in a registry of their own (tests run several apps per process). */
export class PrometheusMetrics implements Metrics {
  private readonly registry = new Registry();
  private readonly smtpSessions = new Counter({ name: 'mailroom_smtp_sessions_total', help: 'SMTP connections accepted', registers: [this.registry] });
  private readonly smtpOpen = new Gauge({ name: 'mailroom_smtp_sessions_open', help: 'SMTP connections open now on this node', registers: [this.registry] });
  private readonly accepted = new Counter({ name: 'mailroom_messages_accepted_total', help: 'Messages stored and answered 250', registers: [this.registry] });
  private readonly refused = new Counter({
    name: 'mailroom_messages_refused_total',
    help: 'Messages or recipients refused, by SMTP reply code',
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });
  private readonly ingestSeconds = new Histogram({
    name: 'mailroom_ingest_duration_seconds',
    help: 'From the end of DATA to the durable commit of the email',
    buckets: INGEST_BUCKETS,
    registers: [this.registry],
  });
  private readonly stageSeconds = new Histogram({
    name: 'mailroom_ingest_stage_duration_seconds',
    help: 'One step of an accepted message: recipient (one RCPT TO), analysis (parse, SPF/DKIM/DMARC, extraction; queueing for a worker included), blobs (from the end of the analysis until the EML, written beside it, and the attachments are fsynced), rows (waiting for and running the group commit)',
    labelNames: ['stage'] as const,
    buckets: STAGE_BUCKETS,
    registers: [this.registry],
  });
  private readonly commitSeconds = new Histogram({
    name: 'mailroom_ingest_commit_duration_seconds',
    help: 'One group commit of accepted messages: its transaction, from BEGIN to COMMIT',
    buckets: STAGE_BUCKETS,
    registers: [this.registry],
  });
  private readonly commitMessages = new Histogram({
    name: 'mailroom_ingest_commit_messages',
    help: 'Accepted messages written by one group commit',
    buckets: BATCH_BUCKETS,
    registers: [this.registry],
  });
  private readonly httpSeconds = new Histogram({
    name: 'mailroom_http_request_duration_seconds',
    help: 'HTTP request duration by route pattern, method and status',
    labelNames: ['route', 'method', 'status'] as const,
    buckets: HTTP_BUCKETS,
    registers: [this.registry],
  });
  private readonly deliveries = new Counter({
    name: 'mailroom_delivery_attempts_total',
    help: 'Webhook and chat-app delivery attempts by outcome (SUCCESS, PENDING = will retry, FAILED = gave up)',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });
  private readonly sseSource = sampledGauge(this.registry, 'mailroom_sse_connections', 'SSE streams open now on this node');
  private readonly imapSource = sampledGauge(this.registry, 'mailroom_imap_sessions', 'IMAP connections open now on this node');
  private readonly queueSource = sampledGauge(this.registry, 'mailroom_delivery_queue_depth', 'Webhook deliveries queued or in flight, all nodes');

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'mailroom_', eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLING_MS });
  }

  smtpSessionOpened(): void {
    this.smtpSessions.inc();
    this.smtpOpen.inc();
  }

  smtpSessionClosed(): void {
    this.smtpOpen.dec();
  }

  messageAccepted(seconds: number): void {
    this.accepted.inc();
    this.ingestSeconds.observe(seconds);
  }

  ingestStage(stage: IngestStage, seconds: number): void {
    this.stageSeconds.observe({ stage }, seconds);
  }

  ingestCommit(messages: number, seconds: number): void {
    this.commitSeconds.observe(seconds);
    this.commitMessages.observe(messages);
  }

  messageRefused(reason: string): void {
    this.refused.inc({ reason });
  }

  httpRequest(route: string, method: string, status: number, seconds: number): void {
    this.httpSeconds.observe({ route, method, status: String(status) }, seconds);
  }

  deliveryAttempt(outcome: string): void {
    this.deliveries.inc({ outcome });
  }

  observe(gauges: { sseConnections?: GaugeSource; imapSessions?: GaugeSource; deliveryQueueDepth?: GaugeSource }): void {
    if (gauges.sseConnections) this.sseSource(gauges.sseConnections);
    if (gauges.imapSessions) this.imapSource(gauges.imapSessions);
    if (gauges.deliveryQueueDepth) this.queueSource(gauges.deliveryQueueDepth);
  }

  async render(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
