/** Why a new connection was refused: the node is full, or this client IP already holds its share. */
export type GateRefusal = 'total' | 'per-ip';

/**
 * Counts open connections in total and per client IP, so one client (or a crowd) cannot take every
 * descriptor. `admit` either counts the connection and returns a release function (idempotent), or
 * says which limit it hit; the listener then refuses in its own protocol.
 */
export class ConnectionGate {
  private total = 0;
  private readonly byIp = new Map<string, number>();

  constructor(
    private readonly maxTotal: number,
    private readonly maxPerIp: number,
  ) {}

  admit(ip: string): { release: () => void } | { refused: GateRefusal } {
    if (this.total >= this.maxTotal) return { refused: 'total' };
    const fromIp = this.byIp.get(ip) ?? 0;
    if (fromIp >= this.maxPerIp) return { refused: 'per-ip' };
    this.total++;
    this.byIp.set(ip, fromIp + 1);
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        this.total--;
        const left = (this.byIp.get(ip) ?? 1) - 1;
        if (left === 0) this.byIp.delete(ip);
        else this.byIp.set(ip, left);
      },
    };
  }

  get size(): number {
    return this.total;
  }
}
