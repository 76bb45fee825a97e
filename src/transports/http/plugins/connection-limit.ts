import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { UnavailableError } from '../../../core/errors.js';

export interface ConnectionLimitOptions {
  maxConnections: number;
  /** HTTPS: count connections once their handshake is done (unfinished ones are bounded by the handshake timeout). */
  secure: boolean;
}

/**
 * Past `maxConnections` open connections, each request on a newer connection is answered
 * 503 TOO_MANY_CONNECTIONS with `Connection: close`, so the client hears why and the descriptor is
 * freed at once; connections already open keep working. Twice the limit, the listener stops
 * accepting (a hard ceiling on descriptors that clients which never send a request cannot pass).
 */
export function registerConnectionLimit(app: FastifyInstance, options: ConnectionLimitOptions): void {
  let open = 0;
  const overLimit = new WeakSet<Socket>();
  app.server.maxConnections = options.maxConnections * 2;
  app.server.on(options.secure ? 'secureConnection' : 'connection', (socket: Socket) => {
    open++;
    if (open > options.maxConnections) overLimit.add(socket);
    socket.once('close', () => open--);
  });
  app.addHook('onRequest', async (request, reply) => {
    if (!overLimit.has(request.raw.socket)) return;
    reply.header('connection', 'close');
    throw new UnavailableError('TOO_MANY_CONNECTIONS', 'The server has too many open connections; try again in a moment');
  });
}
