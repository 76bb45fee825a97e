import { domainOf, normaliseAddress } from '../core/address.js';
import { NotFoundError } from '../core/errors.js';
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

/**
 * Decides at RCPT TO whether Mailroom serves an address: an active, unexpired inbox (on the shared
 * domain or a verified, enabled custom domain), or any address at a tenant's verified and enabled
 * domain (catch-all). Everything else is refused before DATA, or, with a catch-all account
 * (docs/local.md), stored there: a matching inbox still gets its mail.
 */
export class RecipientService {
  constructor(
    private readonly repos: Repositories,
    private readonly tenants: TenantService,
    private readonly admissions: readonly RecipientAdmission[] = [],
    private readonly catchAll?: CatchAllAccount,
  ) {}

  /** The recipient's delivery, once every admission rule (the tenant's quota, …) lets it in. */
  async resolve(rawAddress: string, now = Date.now()): Promise<Delivery> {
    const delivery = await this.route(rawAddress, now).catch((error: unknown) => this.toCatchAll(rawAddress, error));
    for (const admission of this.admissions) await admission.admit(delivery);
    return delivery;
  }

  private toCatchAll(rawAddress: string, error: unknown): Delivery {
    if (this.catchAll === undefined || !isUnknownRecipient(error)) throw error;
    const address = normaliseAddress(rawAddress);
    return { address, tenantId: this.catchAll.tenantId, environmentId: this.catchAll.environmentId, inboxId: null, domain: domainOf(address), domainId: null };
  }

  private async route(rawAddress: string, now: number): Promise<Delivery> {
    const address = normaliseAddress(rawAddress);
    const inbox = await this.repos.inboxes.getByAddress(address);
    if (inbox !== undefined) {
      const expired = inbox.expiresAt !== null && Date.parse(inbox.expiresAt) <= now;
      if (!inbox.active || expired) throw unknownRecipient(address);
      // An inbox on a custom domain receives only while its domain does (disable and delete apply at once).
      if (inbox.domainId !== null && !(await this.repos.domains.isReceiving(inbox.domainId))) throw unknownRecipient(address);
      return {
        address,
        tenantId: inbox.tenantId,
        environmentId: inbox.environmentId,
        inboxId: inbox.id,
        domain: inbox.domain,
        domainId: inbox.domainId,
      };
    }
    const domain = await this.repos.domains.getByName(domainOf(address));
    if (domain === undefined || !domain.verified || !domain.enabled) throw unknownRecipient(address);
    return {
      address,
      tenantId: domain.tenantId,
      environmentId: await this.tenants.productionEnvironmentId(domain.tenantId),
      inboxId: null,
      domain: domain.domain,
      domainId: domain.id,
    };
  }
}
