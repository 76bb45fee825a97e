import { SMTPConnection } from 'smtp-server/lib/smtp-connection.js';
import type { SMTPServerAuthentication, SMTPServerAuthenticationResponse, SMTPServerOptions, SMTPServerSession } from 'smtp-server';
import type { SmtpAuthMode } from '../../config/local-settings.js';

interface ConnectionInternals {
  _server: { options: { refuseUnofferedAuth?: boolean } };
  _ready: boolean;
  _upgrading: boolean;
  _nextHandler: unknown;
  send(code: number, message: string): void;
  _whenWritable(next: () => void): void;
  _onCommand(command: Buffer | string, callback?: () => void): void;
}

let installed = false;

/**
 * With AUTH off, smtp-server answers a client that insists on AUTH with `500 command not
 * recognized`; senders and their operators read 535 as "authentication is the problem", so an
 * unoffered AUTH gets 535 5.7.8 instead. Wraps SMTPConnection#_onCommand (smtp-server 3.21.6);
 * test/integration/local-smtp.test.ts pins it, re-check on upgrades.
 */
function installUnofferedAuthRefusal(): void {
  if (installed) return;
  installed = true;
  const prototype = SMTPConnection.prototype as unknown as ConnectionInternals;
  const onCommand = prototype._onCommand;
  prototype._onCommand = function (this: ConnectionInternals, command, callback) {
    const isAuth = /^AUTH(\s|$)/i.test(command.toString());
    if (!isAuth || this._server.options.refuseUnofferedAuth !== true || !this._ready || this._upgrading || this._nextHandler) {
      return onCommand.call(this, command, callback);
    }
    this.send(535, '5.7.8 Authentication is not offered here; send without AUTH');
    this._whenWritable(callback ?? (() => undefined));
  };
}

type AuthCallback = (error: Error | null | undefined, response?: SMTPServerAuthenticationResponse) => void;

/** MAILROOM_SMTP_AUTH=accept-any: every mechanism, any user and password; the user name is kept on the session. */
const acceptAny = (auth: SMTPServerAuthentication, _session: SMTPServerSession, callback: AuthCallback) => callback(null, { user: auth.username ?? '' });

/** The SMTP server options of an AUTH mode: off (not offered, insisting gets 535) or accept-any. */
export function smtpAuthOptions(mode: SmtpAuthMode): Partial<SMTPServerOptions> & { refuseUnofferedAuth?: boolean } {
  if (mode === 'off') {
    installUnofferedAuthRefusal();
    return { authOptional: true, disabledCommands: ['AUTH'], refuseUnofferedAuth: true };
  }
  // Apps configured with a user and password authenticate before (or without) STARTTLS.
  return { authOptional: true, authMethods: ['PLAIN', 'LOGIN', 'CRAM-MD5'], allowInsecureAuth: true, onAuth: acceptAny };
}

const MAX_USER_LENGTH = 256;

/**
 * The trace header an authenticated submission gets (Postfix's wording), so the user name the app
 * sent is recorded on the stored email. Control characters are replaced: a user name cannot add headers.
 */
export function authenticatedTraceHeader(session: SMTPServerSession, hostname: string, at = new Date()): Buffer | undefined {
  // smtp-server leaves `user` unset (or false) on sessions that did not authenticate.
  const user: unknown = session.user;
  if (typeof user !== 'string') return undefined;
  const safe = (value: string) => [...value].map((c) => (c < ' ' || c === '\x7f' || '()\\'.includes(c) ? '?' : c)).join('').slice(0, MAX_USER_LENGTH);
  const helo = safe(session.hostNameAppearsAs ?? 'unknown');
  return Buffer.from(`Received: from ${helo} ([${session.remoteAddress}])\r\n\tby ${hostname} (Mailroom) with ESMTPA\r\n\t(Authenticated sender: ${safe(user)}); ${at.toUTCString()}\r\n`);
}
