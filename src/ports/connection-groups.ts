import type { PublishedEvent } from './event-bus.js';

/** An event re-routed to a member on another node, because the member first chosen had closed. */
export interface HandOff {
  group: string;
  memberId: string;
  event: PublishedEvent;
  /** How many times the event has been re-routed already (bounded by the receiver). */
  hops: number;
}

/**
 * Membership of distributed-mode SSE groups (spec 6.1: connections of one API key share its events,
 * each event going to one of them). Members are connection ids; a group is a string chosen by the
 * caller. With Redis the membership spans every node; without it, the group is this process only.
 */
export interface ConnectionGroups {
  join(group: string, memberId: string): Promise<void>;
  leave(group: string, memberId: string): Promise<void>;
  /** Keeps members alive; one that is not refreshed within the presence TTL drops out of its group. */
  refresh(members: ReadonlyArray<{ group: string; memberId: string }>): Promise<void>;
  /**
   * The one member of `group` that receives event `eventId`, picked at random once and then the same
   * answer for every caller on every node, even if that member leaves meanwhile: only its own node
   * may report it gone (`goneMemberId`), which removes it and chooses again. Undefined: empty group.
   */
  choose(group: string, eventId: string, goneMemberId?: string): Promise<string | undefined>;
  /**
   * For resuming: gives event `eventId` to `memberId` when no live member holds it (its chosen
   * member died, or it was never chosen). True: the caller should deliver it.
   */
  claimOrphan(group: string, eventId: string, memberId: string): Promise<boolean>;
  /** Sends a re-routed event to the node that holds `memberId` (every node's onHandOff sees it). */
  handOff(handOff: HandOff): Promise<void>;
  onHandOff(listener: (handOff: HandOff) => void): void;
  close(): Promise<void>;
}
