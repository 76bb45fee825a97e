import { randomUUID } from 'node:crypto';
import type { Caller } from '../core/api-key.js';
import { ForbiddenError, InvalidInputError, RateLimitedError, UnauthenticatedError } from '../core/errors.js';
import { compareEventIds, EVENT_ID, isVisible, type DisconnectReason, type StreamScope } from '../core/realtime.js';
import type { StreamMode } from '../core/vocab.js';
import type { Repositories } from '../adapters/db/repositories/index.js';
import type { ConnectionGroups, HandOff } from '../ports/connection-groups.js';
import type { EventBus, PublishedEvent } from '../ports/event-bus.js';
import { connectedMessage, disconnectMessage, eventMessage, heartbeatMessage, type StreamMessage, type StreamSink } from './realtime-messages.js';

export interface StreamRequest {
  caller: Caller;
  mode: StreamMode;
  environmentId?: string;
  /** The id of the last event the client saw (SSE Last-Event-ID): resume after it. */
  lastEventId?: string;
}

interface Connection {
  id: string;
  scope: StreamScope;
  /** Distributed mode: the group this connection shares events with. */
  group: string | undefined;
  sink: StreamSink;
  /** Id of the last event this stream got (or where it started): the id of its heartbeats. */
  cursor: string;
  /** Live events that arrive while a resuming stream replays missed ones. */
  pending: Array<{ event: PublishedEvent; message: StreamMessage }> | undefined;
}

/** Bounded retries when a chosen member closes while the event is being routed to it. */
const MAX_REROUTES = 5;
/**
 * How long a closed distributed member is remembered here: other nodes may have chosen it for an
 * event already in flight, and only this node can see that it is gone and route the event on.
 */
const DEPARTED_RETENTION_MS = 30_000;

/**
 * The realtime hub of one node: holds this node's streams, receives every event from the bus and
 * routes it: to every visible stream (broadcast), or to the one member of each distributed group
 * that ConnectionGroups picks, on whichever node it is. Never awaits a client: a slow one is cut off.
 */
export class RealtimeService {
  private readonly byTenant = new Map<string, Set<Connection>>();
  private readonly byId = new Map<string, Connection>();
  /** Distributed members that closed here recently (see DEPARTED_RETENTION_MS), by connection id. */
  private readonly departed = new Map<string, { connection: Connection; until: number }>();
  private readonly unsubscribe: () => void;

  constructor(
    private readonly bus: EventBus,
    private readonly groups: ConnectionGroups,
    private readonly repos: Repositories,
    /** Unsent bytes a stream may fall behind by before it is closed as a slow consumer. */
    readonly maxBufferBytes: number,
    private readonly onBackgroundError: (error: unknown) => void,
    /** Streams one node holds per API key (or session) and per account; one more is refused with 429. */
    private readonly streamLimits = { perKey: Number.POSITIVE_INFINITY, perTenant: Number.POSITIVE_INFINITY },
  ) {
    this.unsubscribe = bus.subscribe((event) => this.route(event));
    groups.onHandOff((handOff) => this.deliverToMember(handOff).catch(onBackgroundError));
  }

  /** Rejects a bad request with a domain error before any byte of the stream is sent. */
  async assertCanOpen(request: StreamRequest): Promise<void> {
    const { caller, environmentId, lastEventId } = request;
    if (request.mode === 'distributed' && caller.credential === 'jwt') {
      throw new UnauthenticatedError('DISTRIBUTED_REQUIRES_API_KEY', 'Distributed mode groups streams by API key: authenticate with an API key (x-api-key or token), not a JWT');
    }
    if (lastEventId !== undefined && !EVENT_ID.test(lastEventId)) {
      throw new InvalidInputError('LAST_EVENT_ID_INVALID', 'Last-Event-ID must be an event id as sent by this stream (<ms>-<seq>)', { field: 'Last-Event-ID' });
    }
    if (environmentId === undefined) return;
    if (caller.environmentId !== null && caller.environmentId !== environmentId) {
      throw new ForbiddenError('ENVIRONMENT_FORBIDDEN', 'This key is scoped to another environment');
    }
    if ((await this.repos.tenants.getEnvironment(caller.tenantId, environmentId)) === undefined) {
      throw new InvalidInputError('INVALID_ENVIRONMENT', `Environment ${environmentId} is not an environment of this account`, { field: 'environmentId' });
    }
  }

  /**
   * Refuses a stream past the per-key or per-account limit (429 TOO_MANY_STREAMS). Synchronous, and
   * called right before `open`, which registers the stream synchronously: no check races another.
   */
  assertStreamCapacity(caller: Caller): void {
    const streams = this.byTenant.get(caller.tenantId) ?? new Set<Connection>();
    if (streams.size >= this.streamLimits.perTenant) {
      throw new RateLimitedError('TOO_MANY_STREAMS', `This account already has ${streams.size} open streams on this server; close one first`);
    }
    let sameKey = 0;
    for (const connection of streams) if (connection.scope.caller.keyId === caller.keyId) sameKey++;
    if (sameKey >= this.streamLimits.perKey) {
      throw new RateLimitedError('TOO_MANY_STREAMS', `This key already has ${sameKey} open streams on this server; close one first`);
    }
  }

  /** Starts a stream: `connected` first, then missed events when resuming, then live ones. */
  async open(request: StreamRequest, sink: StreamSink): Promise<void> {
    const { caller, mode, lastEventId } = request;
    const environmentId = request.environmentId ?? null;
    const connection: Connection = {
      id: randomUUID(),
      scope: { caller, environmentId },
      group: mode === 'distributed' ? `${caller.keyId}:${environmentId ?? '*'}` : undefined,
      sink,
      cursor: lastEventId ?? this.bus.position(),
      pending: lastEventId === undefined ? undefined : [],
    };
    this.register(connection);
    sink.onClose(() => this.unregister(connection));
    sink.send(connectedMessage(connection.cursor, { tenantId: caller.tenantId, mode, connectionId: connection.id }));
    // A client gone already has left (unregister); joining now would leave a ghost member behind.
    const stillOpen = this.byId.has(connection.id);
    if (connection.group !== undefined && stillOpen) await this.groups.join(connection.group, connection.id).catch(this.onBackgroundError);
    if (lastEventId !== undefined) await this.replay(connection, lastEventId);
  }

  /** A heartbeat event to every stream (except those still replaying). */
  heartbeat(): void {
    for (const connection of this.byId.values()) {
      if (connection.pending === undefined) this.send(connection, heartbeatMessage(connection.cursor));
    }
  }

  /**
   * A stream is authenticated once, when it opens; this re-checks each key with open streams (one
   * read per key) so a deactivated, deleted or expired key stops receiving events within a heartbeat.
   */
  async closeRevoked(): Promise<void> {
    await this.closeEndedSessions();
    const byKey = new Map<string, Connection[]>();
    for (const connection of this.byId.values()) {
      const { caller } = connection.scope;
      if (caller.credential === 'jwt') continue;
      const key = `${caller.tenantId}\n${caller.keyId}`;
      const connections = byKey.get(key) ?? [];
      connections.push(connection);
      byKey.set(key, connections);
    }
    const now = Date.now();
    for (const connections of byKey.values()) {
      const { tenantId, keyId } = (connections[0] as Connection).scope.caller;
      const record = await this.repos.apiKeys.get(tenantId, keyId);
      const valid = record !== undefined && record.active && (record.expiresAt === null || Date.parse(record.expiresAt) > now);
      if (!valid) for (const connection of connections) connection.sink.close(disconnectMessage(connection.cursor, 'key_revoked'));
    }
  }

  /**
   * Dashboard (JWT) streams end when their token expires or their refresh session is signed out or
   * lapses (one read per session), within a heartbeat, like revoked keys' streams.
   */
  private async closeEndedSessions(): Promise<void> {
    const now = Date.now();
    const ended = new Map<string, boolean>();
    for (const connection of [...this.byId.values()]) {
      const session = connection.scope.caller.session;
      if (connection.scope.caller.credential !== 'jwt' || session === undefined) continue;
      let over = session.expiresAtMs <= now;
      if (!over && session.id !== undefined) {
        if (!ended.has(session.id)) ended.set(session.id, await this.sessionGone(session.id, now));
        over = ended.get(session.id) === true;
      }
      if (over) connection.sink.close(disconnectMessage(connection.cursor, 'session_ended'));
    }
  }

  private async sessionGone(sessionId: string, now: number): Promise<boolean> {
    const session = await this.repos.users.getSessionById(sessionId);
    return session === undefined || Date.parse(session.expiresAt) <= now;
  }

  /** Keeps this node's distributed members alive in their groups; a node that stops doing it drops out. */
  async refreshPresence(): Promise<void> {
    const members: Array<{ group: string; memberId: string }> = [];
    for (const connection of this.byId.values()) {
      if (connection.group !== undefined) members.push({ group: connection.group, memberId: connection.id });
    }
    await this.groups.refresh(members);
  }

  /** Ends every stream with a final event saying why (app shutdown). */
  closeAll(reason: DisconnectReason): void {
    for (const connection of [...this.byId.values()]) connection.sink.close(disconnectMessage(connection.cursor, reason));
  }

  async close(): Promise<void> {
    this.closeAll('shutdown');
    this.unsubscribe();
    await this.groups.close();
  }

  get connectionCount(): number {
    return this.byId.size;
  }

  private register(connection: Connection): void {
    const tenantId = connection.scope.caller.tenantId;
    const tenantConnections = this.byTenant.get(tenantId) ?? new Set<Connection>();
    tenantConnections.add(connection);
    this.byTenant.set(tenantId, tenantConnections);
    this.byId.set(connection.id, connection);
  }

  private unregister(connection: Connection): void {
    if (!this.byId.delete(connection.id)) return;
    const tenantConnections = this.byTenant.get(connection.scope.caller.tenantId);
    tenantConnections?.delete(connection);
    if (tenantConnections?.size === 0) this.byTenant.delete(connection.scope.caller.tenantId);
    if (connection.group === undefined) return;
    const now = Date.now();
    for (const [id, entry] of this.departed) {
      if (entry.until > now) break;
      this.departed.delete(id);
    }
    this.departed.set(connection.id, { connection, until: now + DEPARTED_RETENTION_MS });
    this.groups.leave(connection.group, connection.id).catch(this.onBackgroundError);
  }

  private route(event: PublishedEvent): void {
    const message = eventMessage(event);
    const groups = new Set<string>();
    for (const connection of this.byTenant.get(event.tenantId) ?? []) {
      if (!isVisible(connection.scope, event)) continue;
      if (connection.group === undefined) this.deliver(connection, event, message);
      else groups.add(connection.group);
    }
    // A member that just closed here may be the one another node already chose for this event.
    for (const { connection } of this.departed.values()) {
      if (connection.group !== undefined && isVisible(connection.scope, event)) groups.add(connection.group);
    }
    for (const group of groups) this.routeToGroup(group, event, message).catch(this.onBackgroundError);
  }

  private async routeToGroup(group: string, event: PublishedEvent, message: StreamMessage): Promise<void> {
    const memberId = (await this.groups.choose(group, event.id)) ?? (await this.rejoinAndChoose(group, event.id));
    if (memberId !== undefined) await this.deliverToMember({ group, memberId, event, hops: 0 }, message);
  }

  /**
   * Delivers when the member is here. When it closed here, this node alone knows it is gone: it
   * chooses again and hands the event to the node of the new member. Anyone else's member: no-op.
   */
  private async deliverToMember(handOff: HandOff, message = eventMessage(handOff.event)): Promise<void> {
    const { group, memberId, event, hops } = handOff;
    const connection = this.byId.get(memberId);
    if (connection !== undefined) return this.deliver(connection, event, message);
    if (!this.departed.has(memberId) || hops >= MAX_REROUTES) return;
    const next = (await this.groups.choose(group, event.id, memberId)) ?? (await this.rejoinAndChoose(group, event.id));
    if (next === undefined) return;
    const onward = { group, memberId: next, event, hops: hops + 1 };
    if (this.byId.has(next) || this.departed.has(next)) await this.deliverToMember(onward, message);
    else await this.groups.handOff(onward);
  }

  /**
   * An empty group while streams of it are open here: their presence lapsed because this node was
   * slow to refresh it (a stalled event loop, a busy Redis), not because it died. They rejoin at
   * once and the event is chosen among them, instead of reaching nobody.
   */
  private async rejoinAndChoose(group: string, eventId: string): Promise<string | undefined> {
    const members: Array<{ group: string; memberId: string }> = [];
    for (const connection of this.byId.values()) {
      if (connection.group === group) members.push({ group, memberId: connection.id });
    }
    if (members.length === 0) return undefined;
    await this.groups.refresh(members);
    return this.groups.choose(group, eventId);
  }

  private deliver(connection: Connection, event: PublishedEvent, message: StreamMessage): void {
    if (connection.pending !== undefined) {
      connection.pending.push({ event, message });
      return;
    }
    connection.cursor = event.id;
    this.send(connection, message);
  }

  private send(connection: Connection, message: StreamMessage): void {
    if (!connection.sink.send(message)) connection.sink.close(disconnectMessage(connection.cursor, 'slow_consumer'));
  }

  /** Missed events first (in distributed mode only those no live member got), then what came in meanwhile. */
  private async replay(connection: Connection, lastEventId: string): Promise<void> {
    try {
      const missed = (await this.bus.recent(connection.scope.caller.tenantId, lastEventId)).filter((event) => isVisible(connection.scope, event));
      const group = connection.group;
      const owned = group === undefined ? missed.map(() => true) : await Promise.all(missed.map((event) => this.groups.claimOrphan(group, event.id, connection.id)));
      const pending = connection.pending ?? [];
      connection.pending = undefined;
      missed.forEach((event, index) => {
        if (owned[index] === true) this.deliver(connection, event, eventMessage(event));
      });
      for (const { event, message } of pending) {
        if (compareEventIds(event.id, connection.cursor) > 0) this.deliver(connection, event, message);
      }
    } catch (error) {
      connection.pending = undefined;
      this.onBackgroundError(error);
    }
  }
}
