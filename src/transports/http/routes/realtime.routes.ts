import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { STREAM_MODES } from '../../../core/vocab.js';
import type { RealtimeService, StreamRequest } from '../../../services/realtime.service.js';
import { errorResponses } from '../schemas/common.js';
import { SseStream } from '../sse/sse-stream.js';

const EventId = Type.String({ maxLength: 40, description: 'An event id this stream sent (`<ms>-<seq>`)' });

const StreamQuery = Type.Object({
  token: Type.Optional(Type.String({ maxLength: 512, description: 'The API key or dashboard session token, for clients that cannot set headers (EventSource)' })),
  mode: Type.Optional(
    Type.Union(
      STREAM_MODES.map((mode) => Type.Literal(mode)),
      {
        default: 'broadcast',
        description:
          'broadcast: this stream gets every event. distributed: the streams of one API key (and one environmentId filter) share the events, each going to exactly one of them, across all nodes. Requires an API key.',
      },
    ),
  ),
  environmentId: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Only events of this environment' })),
  lastEventId: Type.Optional({ ...EventId, description: 'Resume after this event id, for clients that cannot send the Last-Event-ID header' }),
});

const StreamHeaders = Type.Object({ 'last-event-id': Type.Optional({ ...EventId, description: 'Resume: events after this id from the last five minutes are sent first' }) });

const STREAM_DESCRIPTION = [
  'A text/event-stream. Each event is an `id:` line and one `data:` line holding the JSON envelope `{type, timestamp, data}`; there is no `event:` line, so EventSource.onmessage receives every event.',
  'Types: connected (first), heartbeat (every 30 s), email.received, email.updated, email.deleted, inbox.message, and disconnect (the last one, when the server closes the stream: data.reason slow_consumer, shutdown, key_revoked or session_ended).',
  'Inbox-scoped keys receive only inbox.message events of their inbox, plus connected and heartbeat. See docs/realtime.md.',
].join(' ');

export function registerRealtimeRoutes(app: FastifyInstance, realtime: RealtimeService): void {
  app.get('/realtime/events', {
    config: { access: 'inbox', queryToken: true },
    schema: {
      tags: ['Realtime'],
      summary: 'Server-sent events of the tenant (broadcast or distributed)',
      description: STREAM_DESCRIPTION,
      querystring: StreamQuery,
      headers: StreamHeaders,
      produces: ['text/event-stream'],
      response: {
        200: { description: STREAM_DESCRIPTION, content: { 'text/event-stream': { schema: Type.String() } } },
        ...errorResponses,
      },
    },
    handler: async (request, reply) => {
      const query = request.query as Static<typeof StreamQuery>;
      const headers = request.headers as Static<typeof StreamHeaders>;
      const streamRequest: StreamRequest = {
        caller: request.caller,
        mode: query.mode ?? 'broadcast',
        environmentId: query.environmentId,
        lastEventId: headers['last-event-id'] ?? query.lastEventId,
      };
      await realtime.assertCanOpen(streamRequest);
      realtime.assertStreamCapacity(request.caller);
      reply.hijack();
      await realtime.open(streamRequest, new SseStream(reply.raw, realtime.maxBufferBytes));
    },
  });
}
