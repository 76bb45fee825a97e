import { SMTPConnection } from 'smtp-server/lib/smtp-connection.js';

interface ConnectionInternals {
  _server: { options: { maxClients?: number; greetingDelayMs?: number }; connections: Set<unknown> };
  _setListeners(done: () => void): void;
  send(code: number, message: string, final?: boolean): void;
  connectionReady(): void;
  name: string;
}

const patched = new WeakSet<object>();

/**
 * smtp-server 3.21.6 waits a hard-coded 100 ms before every greeting (an early-talker pause in
 * SMTPConnection#init with no option), which caps one-message-per-connection senders at
 * sessions / 0.1 s and adds 100 ms to every test email. This replaces `init` with the same steps
 * and a pause taken from the server's `greetingDelayMs` option (ours defaults to 0).
 * test/integration/smtp-greeting-delay.test.ts pins the library behaviour this relies on; re-check it on upgrades.
 * `connection` is the copy of the library to patch: bench:smtp's bare server loads its own (bench/node_modules).
 */
export function installGreetingDelayOption(connection: { prototype: object } = SMTPConnection): void {
  if (patched.has(connection.prototype)) return;
  patched.add(connection.prototype);
  const prototype = connection.prototype as ConnectionInternals & { init(): void };
  prototype.init = function init(this: ConnectionInternals) {
    this._setListeners(() => {
      const { maxClients, greetingDelayMs = 100 } = this._server.options;
      if (maxClients && this._server.connections.size > maxClients) {
        this.send(421, `${this.name} Too many connected clients, try again in a moment`, false);
        return;
      }
      if (greetingDelayMs === 0) {
        setImmediate(() => this.connectionReady());
        return;
      }
      setTimeout(() => this.connectionReady(), greetingDelayMs).unref();
    });
  };
}

/**
 * smtp-server options that set the greeting's pause to `delayMs`, with the option installed on
 * `connection` (the copy of the library whose SMTPServer gets them). The library's options type does
 * not know the field, hence the plain object.
 */
export function greetingDelayOption(delayMs: number, connection: { prototype: object } = SMTPConnection): object {
  installGreetingDelayOption(connection);
  return { greetingDelayMs: delayMs };
}
