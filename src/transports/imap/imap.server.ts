import type { AddressInfo } from 'node:net';
import { createServer, type Server, type TLSSocket } from 'node:tls';
import type { TlsMaterial } from '../../adapters/tls/certificate.js';
import type { Logger } from '../../logger.js';
import type { EventBus, PublishedEvent } from '../../ports/event-bus.js';
import type { ImapIdentity, ImapMailboxService } from '../../services/imap-mailbox.service.js';
import { ConnectionGate } from '../connection-gate.js';
import { ImapConnection, type ConnectionRegistry } from './imap-connection.js';

export interface ImapServerOptions {
  tls: TlsMaterial;
  service: ImapMailboxService;
  events: EventBus;
  logger: Logger;
  maxConnectionsPerInbox: number;
  /** Inactivity before the server logs a client out (RFC 3501 §5.4: at least 30 minutes). */
  idleTimeoutMs: number;
  /** docs/security.md: connections in total and per client IP (one more gets BYE), TLS handshake deadline. */
  limits: { maxSessions: number; maxSessionsPerIp: number; handshakeTimeoutMs: number };
}

const REFUSALS = {
  total: '* BYE Too many connections, try again later\r\n',
  'per-ip': '* BYE Too many connections from your address, try again later\r\n',
};

export interface ImapServer {
  listen(port: number, host: string): Promise<{ host: string; port: number }>;
  close(): Promise<void>;
  /** Connections open now (the mailroom_imap_sessions metric). */
  connectionCount(): number;
}

/** Live connections by inbox: the per-inbox limit, and who to wake when the event bus reports a change. */
class Connections implements ConnectionRegistry {
  readonly open = new Set<ImapConnection>();
  private readonly byInbox = new Map<string, Set<ImapConnection>>();
  private readonly inboxOf = new Map<ImapConnection, { inboxId: string; tenantId: string }>();

  constructor(private readonly maxPerInbox: number) {}

  register(connection: ImapConnection, identity: ImapIdentity): boolean {
    const set = this.byInbox.get(identity.inboxId) ?? new Set<ImapConnection>();
    if (set.size >= this.maxPerInbox) return false;
    set.add(connection);
    this.byInbox.set(identity.inboxId, set);
    this.inboxOf.set(connection, { inboxId: identity.inboxId, tenantId: identity.caller.tenantId });
    return true;
  }

  unregister(connection: ImapConnection): void {
    this.open.delete(connection);
    const entry = this.inboxOf.get(connection);
    if (entry === undefined) return;
    this.inboxOf.delete(connection);
    const set = this.byInbox.get(entry.inboxId);
    set?.delete(connection);
    if (set?.size === 0) this.byInbox.delete(entry.inboxId);
  }

  /** New mail wakes the inbox's sessions; read-flag changes and deletions wake the tenant's. */
  dispatch(event: PublishedEvent): void {
    if (event.type === 'inbox.message' && event.inboxId !== undefined) {
      for (const connection of this.byInbox.get(event.inboxId) ?? []) connection.notifyChanged();
      return;
    }
    if (event.type !== 'email.updated' && event.type !== 'email.deleted') return;
    const emailId = event.data.id;
    for (const [connection, entry] of this.inboxOf) {
      if (entry.tenantId !== event.tenantId) continue;
      if (connection.mailbox?.messages.some((m) => m.emailId === emailId)) connection.notifyChanged();
    }
  }
}

/** The IMAP4rev1 listener: implicit TLS with the service certificate, one ImapConnection per client. */
export function createImapServer(options: ImapServerOptions): ImapServer {
  const connections = new Connections(options.maxConnectionsPerInbox);
  const gate = new ConnectionGate(options.limits.maxSessions, options.limits.maxSessionsPerIp);
  let unsubscribe: (() => void) | undefined;
  const tlsOptions = { key: options.tls.key, cert: options.tls.cert, minVersion: 'TLSv1.2' as const, handshakeTimeout: options.limits.handshakeTimeoutMs };
  const server: Server = createServer(tlsOptions, (socket: TLSSocket) => {
    socket.on('error', () => undefined);
    const admitted = gate.admit(socket.remoteAddress ?? '');
    if ('refused' in admitted) {
      socket.end(REFUSALS[admitted.refused]);
      return;
    }
    socket.once('close', admitted.release);
    const connection = new ImapConnection(socket, options.service, connections, options.logger);
    connections.open.add(connection);
    socket.setNoDelay(true);
    socket.setTimeout(options.idleTimeoutMs, () => connection.bye('Autologout: idle for too long'));
    void connection.run();
  });
  // With a listener here, Node leaves the socket open: a failed or timed-out handshake would hold it.
  server.on('tlsClientError', (error, socket) => {
    options.logger.debug({ err: error }, 'IMAP TLS handshake failed');
    socket.destroy();
  });

  return {
    listen(port, host) {
      unsubscribe = options.events.subscribe((event) => connections.dispatch(event));
      return new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
          server.off('error', reject);
          const address = server.address() as AddressInfo;
          resolve({ host: address.address, port: address.port });
        });
      });
    },
    connectionCount: () => connections.open.size,
    async close() {
      unsubscribe?.();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const connection of connections.open) connection.bye('Server shutting down');
      const deadline = setTimeout(() => {
        for (const connection of connections.open) connection.destroy();
      }, 2000);
      await closed;
      clearTimeout(deadline);
    },
  };
}
