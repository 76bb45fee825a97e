import { isLoopback } from '../core/loopback.js';
import type { AccountService, Session } from './account.service.js';

/**
 * MAILROOM_DASHBOARD_LOGIN=off-on-loopback (docs/local.md): a browser on this machine without a
 * session gets one for the local account's user instead of the sign-in page. Anyone else signs in.
 * The peer address is the socket's (never X-Forwarded-For; the setting refuses MAILROOM_TRUST_PROXY).
 */
export class LoginFreeSessions {
  constructor(
    private readonly accounts: AccountService,
    /** The local account's user; undefined: logins are required everywhere. */
    private readonly userId: string | undefined,
  ) {}

  get enabled(): boolean {
    return this.userId !== undefined;
  }

  /** The local account's session for a loopback peer, or undefined (the caller's own error stands). */
  async forPeer(peerAddress: string | undefined): Promise<Session | undefined> {
    if (this.userId === undefined || !isLoopback(peerAddress)) return undefined;
    return this.accounts.sessionFor(this.userId);
  }
}
