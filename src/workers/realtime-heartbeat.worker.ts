import { presenceRefreshMs } from '../adapters/events/create-event-adapters.js';
import type { Logger } from '../logger.js';
import type { RealtimeService } from '../services/realtime.service.js';
import { createPeriodicTask, type BackgroundTask } from './periodic-task.js';

/** Per node (no lease): the SSE heartbeat (with the check for revoked keys), and the presence refresh of distributed-mode streams. */
export function createRealtimeTasks(realtime: RealtimeService, heartbeatMs: number, logger: Logger): BackgroundTask[] {
  return [
    createPeriodicTask({
      name: 'sse-heartbeat',
      intervalMs: heartbeatMs,
      run: async () => {
        realtime.heartbeat();
        await realtime.closeRevoked();
      },
      logger,
    }),
    createPeriodicTask({ name: 'sse-presence', intervalMs: presenceRefreshMs(heartbeatMs), run: () => realtime.refreshPresence(), logger }),
  ];
}
