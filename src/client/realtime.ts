import type { InboxMessage } from './api-types.generated.js';
import { MailroomApiError, type Transport } from './http.js';

/** SSE events are not in the OpenAPI document, so these types are written by hand against docs/realtime.md. */
interface Envelope<T extends string, D> {
  /** The SSE id: pass it as lastEventId to resume after this event. */
  id: string;
  type: T;
  timestamp: string;
  data: D;
}

export interface EmailReceivedData {
  id: string;
  from: string;
  to: string[];
  subject: string;
  domain: string;
  /** The custom domain's id; null for the shared inbox domain. */
  domainId: string | null;
  createdAt: string;
  hasAttachments: boolean;
  attachmentCount: number;
}

export interface InboxMessageData {
  inboxId: string;
  messageId: string;
  emailId: string;
  from: string;
  subject: string;
  extracted: InboxMessage['extracted'];
  extractionSkipped: InboxMessage['extractionSkipped'];
}

/** email.updated: the read flag, or the spam verdict the recheck worker filled in (docs/spam.md). */
export interface EmailChanges {
  read?: boolean;
  spamCheck?: 'off' | 'done' | 'unavailable';
  spamScore?: number | null;
  spamThreshold?: number | null;
  isSpam?: boolean | null;
  spamAction?: string | null;
  spamRules?: Array<{ name: string; score: number; description: string | null; options: string[] }>;
}

export type RealtimeEvent =
  | Envelope<'connected', { tenantId: string; connectedAt: string; mode: StreamMode; connectionId: string }>
  | Envelope<'heartbeat', { timestamp: string }>
  | Envelope<'email.received', EmailReceivedData>
  | Envelope<'email.updated', { id: string; changes: EmailChanges }>
  | Envelope<'email.deleted', { id: string }>
  | Envelope<'inbox.message', InboxMessageData>
  | Envelope<'disconnect', { reason: 'slow_consumer' | 'shutdown' | 'key_revoked' | 'session_ended'; message: string }>;

export type RealtimeEventType = RealtimeEvent['type'];
export type StreamMode = 'broadcast' | 'distributed';

export interface SubscribeOptions {
  onEvent: (event: RealtimeEvent) => void;
  /** Connection problems; the subscription keeps reconnecting unless the error is a 4xx (then it stops). */
  onError?: (error: unknown) => void;
  mode?: StreamMode;
  environmentId?: string;
  /** Resume after this event id (events of the last five minutes are replayed). */
  lastEventId?: string;
  /** Delay before reconnecting after the stream drops (default 5000 ms, spec 8). */
  reconnectDelayMs?: number;
}

export interface Subscription {
  /** Id of the last event received: where a reconnect resumes. */
  readonly lastEventId: string | undefined;
  close(): void;
}

/** Splits an SSE byte stream into (id, data) events; handles chunks that cut lines anywhere. */
class SseParser {
  private buffer = '';
  private id: string | undefined;
  private data: string[] = [];

  constructor(private readonly emit: (id: string | undefined, data: string) => void) {}

  push(text: string): void {
    this.buffer += text;
    let newline: number;
    while ((newline = this.buffer.search(/\r\n|\r|\n/)) >= 0) {
      const line = this.buffer.slice(0, newline);
      this.buffer = this.buffer.slice(newline + (this.buffer.startsWith('\r\n', newline) ? 2 : 1));
      this.line(line);
    }
  }

  private line(line: string): void {
    if (line === '') {
      if (this.data.length > 0) this.emit(this.id, this.data.join('\n'));
      this.data = [];
      return;
    }
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'id') this.id = value;
    else if (field === 'data') this.data.push(value);
  }
}

/**
 * Reads /realtime/events over fetch (so the key travels in a header, in browsers too), reconnecting
 * after `reconnectDelayMs` with Last-Event-ID whenever the stream ends or fails.
 */
export function subscribe(http: Transport, options: SubscribeOptions): Subscription {
  const reconnectDelayMs = options.reconnectDelayMs ?? 5_000;
  let lastEventId = options.lastEventId;
  let closed = false;
  /** The server refused the stream for good (bad key or parameters): reconnecting cannot help. */
  let refused = false;
  let controller: AbortController | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;

  const dispatch = (id: string | undefined, data: string) => {
    if (id !== undefined) lastEventId = id;
    let event: RealtimeEvent;
    try {
      event = { id: id ?? '', ...(JSON.parse(data) as Omit<RealtimeEvent, 'id'>) } as RealtimeEvent;
    } catch (error) {
      options.onError?.(error);
      return;
    }
    options.onEvent(event);
  };

  const connect = async (): Promise<void> => {
    controller = new AbortController();
    const query = new URLSearchParams({ mode: options.mode ?? 'broadcast', ...(options.environmentId ? { environmentId: options.environmentId } : {}) });
    const headers: Record<string, string> = { 'x-api-key': http.apiKey, accept: 'text/event-stream' };
    if (lastEventId !== undefined) headers['last-event-id'] = lastEventId;
    const response = await http.fetch(`${http.baseUrl}/api/v1/realtime/events?${query}`, { headers, signal: controller.signal });
    if (!response.ok || response.body === null) {
      const error = new MailroomApiError(await response.json().catch(() => ({ statusCode: response.status, error: response.statusText, code: 'HTTP_ERROR', message: 'stream refused' })));
      if (response.status >= 400 && response.status < 500 && response.status !== 429) refused = true;
      throw error;
    }
    const parser = new SseParser(dispatch);
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) parser.push(chunk.value);
  };

  const run = (): void => {
    connect()
      .catch((error: unknown) => {
        if (!closed) options.onError?.(error);
      })
      .finally(() => {
        if (closed || refused) return;
        timer = setTimeout(run, reconnectDelayMs);
      });
  };
  run();

  return {
    get lastEventId() {
      return lastEventId;
    },
    close() {
      closed = true;
      clearTimeout(timer);
      controller?.abort();
    },
  };
}
