import { describe, expect, it } from 'vitest';
import type { DeliveryJob } from '../adapters/db/repositories/delivery.repository.js';
import { createLogger } from '../logger.js';
import { createDeliveryWorker } from './delivery.worker.js';

const job = (id: string): DeliveryJob => ({
  id,
  deliveryId: id,
  tenantId: 't',
  environmentId: null,
  emailId: id,
  targetKind: 'WEBHOOK',
  targetId: 'w',
  attemptsMade: 0,
  maxAttempts: null,
});

function harness(concurrency: number, reservationTtlMs = 60_000) {
  const limits: number[] = [];
  const delivered: string[] = [];
  const worker = createDeliveryWorker({
    concurrency,
    pollIntervalMs: 60_000,
    reservationTtlMs,
    logger: createLogger('silent'),
    claim: async (limit) => {
      limits.push(limit);
      return [];
    },
    deliver: async (j) => {
      delivered.push(j.id);
    },
  });
  return { worker, limits, delivered };
}

describe('delivery worker reservations', () => {
  it('sets slots aside for jobs claimed in a transaction, and runs them without claiming', async () => {
    const { worker, limits, delivered } = harness(4);
    expect(worker.reserve(2)).toBeUndefined();
    worker.start();
    const reservation = worker.reserve(10);
    expect(reservation?.size).toBe(4);
    expect(worker.reserve(1)).toBeUndefined();
    reservation?.run([job('a'), job('b')]);
    await worker.stop();
    expect(delivered).toEqual(['a', 'b']);
    expect(limits).toEqual([4]);
  });

  it('gives an unused reservation back when it expires', async () => {
    const { worker } = harness(2, 10);
    worker.start();
    expect(worker.reserve(2)?.size).toBe(2);
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(worker.reserve(2)?.size).toBe(2);
    await worker.stop();
  });
});
