import { domainOf, normaliseAddress } from '../core/address.js';
import { NotFoundError } from '../core/errors.js';
import { ExpiringCache } from '../core/expiring-cache.js';
import type { Repositories } from '../adapters/db/repositories/index.js';
import type { TenantService } from './tenant.service.js';

/** Where a recipient's mail goes: one tenant, one environment, and the inbox when the address is one. */
export interface Delivery {
  address: string;
  tenantId: string;
  environmentId: string;
  inboxId: string | null;
  domain: string;
  domainId: string | null;
}

export const unknownRecipient = (address: string) => new NotFoundError('RECIPIENT_UNKNOWN', `No mailbox here by the name ${address}`);

/** A rule that may refuse a recipient Mailroom serves (a tenant over its quota) by throwing a domain error. */
export interface RecipientAdmission {
  admit(delivery: Delivery): Promise<void>;
}

/** MAILROOM_ACCEPT_ANY_RECIPIENT: the account that receives mail nobody else serves. */
export interface CatchAllAccount {
  tenantId: string;
  environmentId: string;
}

const isUnknownRecipient = (error: unknown): boolean => error instanceof NotFoundError && error.code === 'RECIPIENT_UNKNOWN';

/** Told after an inbox, alias or domain changed on this node, so the next RCPT TO reads the new state. */
export interface RecipientChanges {
  forget(): void;
}

/** A served address as read from the database; an inbox's expiry is checked at each use, not when read. */
interface Route {
  delivery: Delivery;
  expiresAt: number | null;
}

/** Bounds the per-process memory; forgetting entries costs one extra read each. */
const MAX_CACHED_ROUTES = 10_000;

/**
 * Decides at RCPT TO whether Mailroom serves an address: an active, unexpired inbox (on the shared
 * domain or a verified, enabled custom domain), or any address at a tenant's verified and enabled
 * domain (catch-all). Everything else is refused before DATA, or, with a catch-all account
 * (docs/local.md), stored there: a matching inbox still gets its mail.
 *
 * Served addresses are remembered for `cacheMs` (D35): a busy inbox then costs no database read per
 * message. Unknown addresses are never remembered, so a new inbox or alias receives at once. A change
 * made on this node (inbox deleted or deactivated, alias removed, domain disabled or deleted) calls
 * forget() and applies at once; one made on another node or by the CLI applies here within `cacheMs`.
 */
export class RecipientService implements RecipientChanges {
  private readonly routes: ExpiringCache<string, Route>;

  constructor(
    private readonly repos: Repositories,
    private readonly tenants: TenantService,
    cacheMs: number,
    private readonly admissions: readonly RecipientAdmission[] = [],
    private readonly catchAll?: CatchAllAccount,
  ) {
    this.routes = new ExpiringCache(cacheMs, MAX_CACHED_ROUTES);
  }

  /** The recipient's delivery, once every admission rule (the tenant's quota, …) lets it in. */
  async resolve(rawAddress: string, now = Date.now()): Promise<Delivery> {
    const delivery = await this.served(normaliseAddress(rawAddress), now).catch((error: unknown) => this.toCatchAll(rawAddress, error));
    for (const admission of this.admissions) await admission.admit(delivery);
    return delivery;
  }

  forget(): void {
    this.routes.clear();
  }

  private async served(address: string, now: number): Promise<Delivery> {
    // An unknown address (or a failed read) is not remembered: the next RCPT TO reads again.
    const { delivery, expiresAt } = await this.routes.get(address, () => this.route(address), now);
    if (expiresAt !== null && expiresAt <= now) throw unknownRecipient(address);
    return delivery;
  }

  private toCatchAll(rawAddress: string, error: unknown): Delivery {
    if (this.catchAll === undefined || !isUnknownRecipient(error)) throw error;
    const address = normaliseAddress(rawAddress);
    return { address, tenantId: this.catchAll.tenantId, environmentId: this.catchAll.environmentId, inboxId: null, domain: domainOf(address), domainId: null };
  }

  private async route(address: string): Promise<Route> {
    const inbox = await this.repos.inboxes.getByAddress(address);
    if (inbox !== undefined) {
      if (!inbox.active) throw unknownRecipient(address);
      // An inbox on a custom domain receives only while its domain does (DomainService forgets routes on disable and delete).
      if (inbox.domainId !== null && !(await this.repos.domains.isReceiving(inbox.domainId))) throw unknownRecipient(address);
      return {
        delivery: { address, tenantId: inbox.tenantId, environmentId: inbox.environmentId, inboxId: inbox.id, domain: inbox.domain, domainId: inbox.domainId },
        expiresAt: inbox.expiresAt === null ? null : Date.parse(inbox.expiresAt),
      };
    }
    const domain = await this.repos.domains.getByName(domainOf(address));
    if (domain === undefined || !domain.verified || !domain.enabled) throw unknownRecipient(address);
    const environmentId = await this.tenants.productionEnvironmentId(domain.tenantId);
    return { delivery: { address, tenantId: domain.tenantId, environmentId, inboxId: null, domain: domain.domain, domainId: domain.id }, expiresAt: null };
  }
}
