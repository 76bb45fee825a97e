import { REPLAY_WINDOW_MS } from '../../core/realtime.js';
import type { ConnectionGroups, HandOff } from '../../ports/connection-groups.js';

const MAX_REMEMBERED_CHOICES = 50_000;

/** Groups within one process: every member is local, so a connection that closes leaves at once. */
export class MemoryConnectionGroups implements ConnectionGroups {
  private readonly groups = new Map<string, Set<string>>();
  /** group + event id → chosen member, kept for the replay window so resuming finds orphans. */
  private readonly choices = new Map<string, { memberId: string; at: number }>();
  private readonly handOffListeners: Array<(handOff: HandOff) => void> = [];

  async join(group: string, memberId: string): Promise<void> {
    const members = this.groups.get(group) ?? new Set<string>();
    members.add(memberId);
    this.groups.set(group, members);
  }

  async leave(group: string, memberId: string): Promise<void> {
    const members = this.groups.get(group);
    members?.delete(memberId);
    if (members?.size === 0) this.groups.delete(group);
  }

  async refresh(): Promise<void> {}

  async choose(group: string, eventId: string, goneMemberId?: string): Promise<string | undefined> {
    if (goneMemberId !== undefined) await this.leave(group, goneMemberId);
    const key = `${group}\n${eventId}`;
    const previous = this.choices.get(key)?.memberId;
    if (previous !== undefined && previous !== goneMemberId) return previous;
    const members = [...(this.groups.get(group) ?? [])];
    const chosen = members[Math.floor(Math.random() * members.length)];
    if (chosen !== undefined) this.remember(key, chosen);
    return chosen;
  }

  async claimOrphan(group: string, eventId: string, memberId: string): Promise<boolean> {
    const key = `${group}\n${eventId}`;
    const holder = this.choices.get(key)?.memberId;
    if (holder !== undefined && holder !== memberId && this.isMember(group, holder)) return false;
    this.remember(key, memberId);
    return true;
  }

  async handOff(handOff: HandOff): Promise<void> {
    for (const listener of this.handOffListeners) listener(handOff);
  }

  onHandOff(listener: (handOff: HandOff) => void): void {
    this.handOffListeners.push(listener);
  }

  async close(): Promise<void> {
    this.groups.clear();
    this.choices.clear();
  }

  private isMember(group: string, memberId: string): boolean {
    return this.groups.get(group)?.has(memberId) ?? false;
  }

  /** Maps iterate in insertion order, so the oldest choices are dropped first. */
  private remember(key: string, memberId: string): void {
    const now = Date.now();
    this.choices.delete(key);
    this.choices.set(key, { memberId, at: now });
    for (const [oldKey, choice] of this.choices) {
      if (this.choices.size <= MAX_REMEMBERED_CHOICES && now - choice.at <= REPLAY_WINDOW_MS) break;
      this.choices.delete(oldKey);
    }
  }
}
