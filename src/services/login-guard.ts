import type { FailureCounter } from '../ports/failure-counter.js';

export interface LoginGuardLimits {
  /** Failures of one identity (an email, an inbox address) from one client IP before that pair is refused. */
  perIdentityAndIp: number;
  /** Failures from one client IP, over all identities, before that IP is refused. */
  perIp: number;
}

/**
 * Throttles logins per (identity, client IP) and per client IP. An attacker's failures lock out
 * only the attacker's IP: the real user, signing in from another IP, still gets through.
 */
export class LoginGuard {
  constructor(
    private readonly counter: FailureCounter,
    private readonly name: string,
    private readonly limits: LoginGuardLimits,
  ) {}

  private pairKey(identity: string, ip: string): string {
    return `${this.name}:pair:${ip}:${identity}`;
  }

  private ipKey(ip: string): string {
    return `${this.name}:ip:${ip}`;
  }

  async blocked(identity: string, ip: string): Promise<boolean> {
    const [pair, byIp] = await Promise.all([this.counter.count(this.pairKey(identity, ip)), this.counter.count(this.ipKey(ip))]);
    return pair >= this.limits.perIdentityAndIp || byIp >= this.limits.perIp;
  }

  async fail(identity: string, ip: string): Promise<void> {
    await Promise.all([this.counter.fail(this.pairKey(identity, ip)), this.counter.fail(this.ipKey(ip))]);
  }
}
