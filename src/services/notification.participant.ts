import { randomUUID } from 'node:crypto';
import { firesFor } from '../core/notification-routing.js';
import type { Repositories } from '../adapters/db/repositories/index.js';
import type { DeliveryJob, KnownTargets, NotificationTargets } from '../adapters/db/repositories/delivery.repository.js';
import type { DeliveryWorker, Reservation } from '../workers/delivery.worker.js';
import type { IngestParticipant, StoredEmail } from './ingest-participant.js';

export interface NotificationParticipantOptions {
  worker: DeliveryWorker;
  /** This node's claim owner and lease, for the jobs it claims for itself in the ingest transaction. */
  workerId: string;
  leaseMs: number;
  /** Jobs of one tenant in flight at once, over all nodes (the claim query keeps the same bound). */
  perTenant: number;
}

function job(stored: StoredEmail, targetKind: DeliveryJob['targetKind'], targetId: string): DeliveryJob {
  return {
    id: randomUUID(),
    deliveryId: randomUUID(),
    tenantId: stored.email.tenantId,
    environmentId: stored.email.environmentId,
    emailId: stored.email.id,
    targetKind,
    targetId,
    attemptsMade: 0,
    maxAttempts: null,
  };
}

function jobsFor(stored: StoredEmail, { webhooks, integrations }: NotificationTargets): DeliveryJob[] {
  const inboxIds = stored.inboxMessages.map((m) => m.inboxId);
  return [
    ...webhooks.filter((w) => w.events.includes('email.received') && firesFor(w.inboxIds, inboxIds)).map((w) => job(stored, 'WEBHOOK', w.id)),
    ...integrations.filter((i) => firesFor(i.inboxIds, inboxIds)).map((i) => job(stored, i.kind === 'bot' ? 'CHATAPP_BOT' : 'CHATAPP', i.id)),
  ];
}

/** Tenants whose targets this node keeps; at the limit it starts over (one read more per tenant, never a wrong target). */
const MOST_KNOWN_TENANTS = 10_000;

/**
 * Each tenant's targets as this node last read them. On PostgreSQL a group write uses them without a
 * read and its statement checks they are still current, failing (and forgetting them) if not (D87).
 */
class KnownTargetsByTenant {
  private readonly known = new Map<string, KnownTargets>();

  async current(repos: Repositories, tenantId: string): Promise<NotificationTargets> {
    const current = await repos.deliveries.currentTargets(tenantId, this.known.get(tenantId), () => this.known.delete(tenantId));
    if (current.version === undefined) return current.targets;
    if (this.known.size >= MOST_KNOWN_TENANTS && !this.known.has(tenantId)) this.known.clear();
    this.known.set(tenantId, current);
    return current.targets;
  }
}

/** What one write of a group queued, until its commit starts the claimed jobs or its failure releases their slots. */
interface QueuedJobs {
  emails: StoredEmail[];
  reservation: Reservation | undefined;
  claimed: DeliveryJob[];
  unclaimed: number;
}

/** The jobs of a group of emails, with each tenant's targets taken once however many of its emails the group holds. */
async function jobsOf(repos: Repositories, emails: StoredEmail[], known: KnownTargetsByTenant): Promise<DeliveryJob[]> {
  const tenants = [...new Set(emails.map((stored) => stored.email.tenantId))];
  const targets = new Map(await Promise.all(tenants.map(async (tenantId) => [tenantId, await known.current(repos, tenantId)] as const)));
  return emails.flatMap((stored) => jobsFor(stored, targets.get(stored.email.tenantId) as NotificationTargets));
}

/**
 * The jobs this node may claim now, in round-robin order across tenants (every tenant's first, then
 * every tenant's second, …), none beyond its tenant's room: `perTenant` minus the claims already held.
 */
function fairShare(jobs: DeliveryJob[], perTenant: number, inFlight: Map<string, number>): DeliveryJob[] {
  const turns = new Map<string, number>();
  const withTurn = jobs.map((job) => {
    const turn = turns.get(job.tenantId) ?? 0;
    turns.set(job.tenantId, turn + 1);
    return { job, turn };
  });
  return withTurn
    .filter(({ job, turn }) => turn < perTenant - (inFlight.get(job.tenantId) ?? 0))
    .sort((a, b) => a.turn - b.turn)
    .map(({ job }) => job);
}

/**
 * The transactional outbox: one delivery row per (email, webhook or integration), inserted in the
 * ingest transaction so a committed email always has its notifications queued. As many as this
 * node's worker has free slots for, within each tenant's share, are inserted already claimed by it and start right after the
 * commit, with no claim query; the rest are left for the next claim, which the commit triggers. If
 * the node dies first, the claim's lease runs out and any node picks the job up.
 */
export function createNotificationParticipant(options: NotificationParticipantOptions): IngestParticipant {
  // By email, not by the write's array: a failed write runs again with the same emails in a new array.
  const queued = new WeakMap<StoredEmail, QueuedJobs>();
  const known = new KnownTargetsByTenant();
  /** What the write holding this email queued, no longer kept for any email of it. */
  const take = (stored: StoredEmail | undefined): QueuedJobs | undefined => {
    const batch = stored === undefined ? undefined : queued.get(stored);
    for (const email of batch?.emails ?? []) queued.delete(email);
    return batch;
  };
  /** An earlier write of these emails failed: the slots it reserved go back to the worker. */
  const forget = (emails: StoredEmail[]) => {
    for (const stored of emails) take(stored)?.reservation?.release();
  };
  return {
    name: 'notifications',
    async inTransaction(repos, emails) {
      forget(emails);
      const jobs = await jobsOf(repos, emails, known);
      if (jobs.length === 0) return;
      const now = Date.now();
      const inFlight = await repos.deliveries.inFlightByTenant([...new Set(jobs.map((j) => j.tenantId))], now);
      const wanted = fairShare(jobs, options.perTenant, inFlight);
      const reservation = wanted.length === 0 ? undefined : options.worker.reserve(wanted.length);
      const claimed = wanted.slice(0, reservation?.size ?? 0);
      const claimedIds = new Set(claimed.map((j) => j.id));
      // Kept before the inserts, which may fail here (SQLite runs them now): the failure releases the slots.
      const batch: QueuedJobs = { emails, reservation, claimed, unclaimed: jobs.length - claimed.length };
      for (const stored of emails) queued.set(stored, batch);
      await repos.deliveries.enqueue(claimed, now + options.leaseMs, options.workerId);
      await repos.deliveries.enqueue(jobs.filter((j) => !claimedIds.has(j.id)), now);
    },
    afterCommit(emails) {
      const batch = take(emails[0]);
      if (batch === undefined) return;
      batch.reservation?.run(batch.claimed);
      if (batch.unclaimed > 0) options.worker.wake();
    },
    afterFailure: forget,
  };
}
