import type { AppConfig } from '../../config/config.js';
import type { ConnectionGroups } from '../../ports/connection-groups.js';
import type { EventBus } from '../../ports/event-bus.js';
import { MemoryConnectionGroups } from './memory.connection-groups.js';
import { MemoryEventBus } from './memory.event-bus.js';

export interface EventAdapters {
  events: EventBus;
  connectionGroups: ConnectionGroups;
}

/**
 * Distributed-mode presence is refreshed three times per heartbeat and lapses after two thirds of
 * one, so a member whose node died leaves its group within one heartbeat.
 */
export const presenceRefreshMs = (heartbeatMs: number) => Math.max(1, Math.floor(heartbeatMs / 3));
const presenceTtlMs = (heartbeatMs: number) => Math.max(2, Math.floor((heartbeatMs * 2) / 3));

/** Redis when MAILROOM_REDIS_URL is set (every node sees every event), else this process only. */
export async function createEventAdapters(config: AppConfig, onHandlerError: (error: unknown) => void, override?: EventBus): Promise<EventAdapters> {
  const { redisPrefix, heartbeatMs } = config.realtime;
  if (config.redisUrl === undefined || override !== undefined) {
    return { events: override ?? new MemoryEventBus(onHandlerError), connectionGroups: new MemoryConnectionGroups() };
  }
  // ioredis loads only here, in distributed mode (docs/decisions.md D34).
  const [{ RedisEventBus }, { RedisConnectionGroups }] = await Promise.all([import('./redis.event-bus.js'), import('./redis.connection-groups.js')]);
  const [events, connectionGroups] = await Promise.all([
    RedisEventBus.connect(config.redisUrl, redisPrefix, onHandlerError),
    RedisConnectionGroups.connect(config.redisUrl, redisPrefix, presenceTtlMs(heartbeatMs)),
  ]);
  return { events, connectionGroups };
}
