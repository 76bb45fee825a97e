import { DISCONNECT_EVENT, type DisconnectReason, type EventEnvelope } from '../core/realtime.js';
import type { StreamMode } from '../core/vocab.js';
import type { PublishedEvent } from '../ports/event-bus.js';

/** One event ready for the wire: its id and its envelope serialised once, for every stream that gets it. */
export interface StreamMessage {
  id: string;
  json: string;
}

/** Where a stream's messages go (the SSE response); transports implement it. */
export interface StreamSink {
  /** False when the client has fallen too far behind: the hub then closes it as a slow consumer. */
  send(message: StreamMessage): boolean;
  /** Sends `final` and ends the stream; later calls do nothing. */
  close(final: StreamMessage): void;
  /** Runs once when the stream is gone, whoever closed it. */
  onClose(listener: () => void): void;
}

const message = (id: string, envelope: EventEnvelope): StreamMessage => ({ id, json: JSON.stringify(envelope) });

export function eventMessage(event: PublishedEvent): StreamMessage {
  return message(event.id, { type: event.type, timestamp: event.timestamp, data: event.data });
}

export function connectedMessage(cursor: string, info: { tenantId: string; mode: StreamMode; connectionId: string }): StreamMessage {
  const connectedAt = new Date().toISOString();
  return message(cursor, { type: 'connected', timestamp: connectedAt, data: { tenantId: info.tenantId, connectedAt, mode: info.mode, connectionId: info.connectionId } });
}

export function heartbeatMessage(cursor: string): StreamMessage {
  const timestamp = new Date().toISOString();
  return message(cursor, { type: 'heartbeat', timestamp, data: { timestamp } });
}

const DISCONNECT_TEXT: Record<DisconnectReason, string> = {
  slow_consumer: 'The client fell too far behind reading events; reconnect with Last-Event-ID to resume',
  shutdown: 'The server is shutting down; reconnect with Last-Event-ID to resume',
  key_revoked: 'The API key of this stream was deactivated, deleted or has expired',
  session_ended: 'The dashboard session of this stream was signed out or its token expired; reconnect with a fresh token',
};

export function disconnectMessage(cursor: string, reason: DisconnectReason): StreamMessage {
  return message(cursor, { type: DISCONNECT_EVENT, timestamp: new Date().toISOString(), data: { reason, message: DISCONNECT_TEXT[reason] } });
}
