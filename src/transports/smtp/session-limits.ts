import type { SMTPServer, SMTPServerSession } from 'smtp-server';
import { ConnectionGate } from '../connection-gate.js';
import { smtpError, type SmtpReply } from './smtp-replies.js';

export interface SessionLimitOptions {
  maxSessions: number;
  maxSessionsPerIp: number;
  /** Absolute session length: a client that keeps sending a byte now and then still leaves by then. */
  lifetimeMs: number;
}

/** The parts of smtp-server's SMTPConnection this module uses (not in its public types). */
interface Connection {
  id: string;
  send(code: number, message: string): void;
  close(): void;
}

interface OpenSession {
  release: () => void;
  lifetime: NodeJS.Timeout;
}

const REFUSALS: Record<'total' | 'per-ip', SmtpReply> = {
  total: { code: 421, message: '4.7.0 Too many connections, try again later' },
  'per-ip': { code: 421, message: '4.7.0 Too many connections from your address, try again later' },
};
const LIFETIME_OVER: SmtpReply = { code: 421, message: '4.4.2 Session time limit reached, closing connection' };

/**
 * Connection limits of the SMTP listener: sessions in total and per client IP (one more gets
 * 421 4.7.0 and is closed; the others carry on), and a lifetime after which a session gets 421 4.4.2.
 * `attach` once the server exists; `onConnect`/`onClose` are the server's hooks.
 */
export class SmtpSessionLimits {
  private readonly gate: ConnectionGate;
  private readonly open = new Map<string, OpenSession>();
  private server: SMTPServer | undefined;

  constructor(private readonly options: SessionLimitOptions) {
    this.gate = new ConnectionGate(options.maxSessions, options.maxSessionsPerIp);
  }

  attach(server: SMTPServer): void {
    this.server = server;
  }

  /** Counts the session in, or returns the 421 error that refuses it. */
  onConnect(session: SMTPServerSession): Error | undefined {
    const admitted = this.gate.admit(session.remoteAddress);
    if ('refused' in admitted) return smtpError(REFUSALS[admitted.refused]);
    const lifetime = setTimeout(() => this.end(session, LIFETIME_OVER), this.options.lifetimeMs);
    lifetime.unref();
    this.open.set(session.id, { release: admitted.release, lifetime });
    return undefined;
  }

  onClose(session: SMTPServerSession): void {
    const open = this.open.get(session.id);
    if (open === undefined) return;
    this.open.delete(session.id);
    clearTimeout(open.lifetime);
    open.release();
  }

  /** Sends `reply` (a 421) and closes the session, whatever it is doing. */
  end(session: SMTPServerSession, reply: SmtpReply): void {
    const connections = (this.server as unknown as { connections: Set<Connection> } | undefined)?.connections ?? [];
    for (const connection of connections) {
      if (connection.id !== session.id) continue;
      connection.send(reply.code, reply.message);
      connection.close();
    }
  }
}
