import { randomBytes, randomUUID } from 'node:crypto';
import { hashApiKey } from '../core/api-key.js';
import { hashPassword } from '../core/password.js';
import type { Repositories } from '../adapters/db/repositories/index.js';
import type { User } from '../adapters/db/repositories/user.repository.js';
import type { TenantService } from './tenant.service.js';

export interface LocalAccountKey {
  tenantId: string;
  apiKey: string;
}

/** Where the local account's API key is kept between restarts (the data dir). */
export interface LocalAccountKeyStore {
  read(): Promise<LocalAccountKey | undefined>;
  write(key: LocalAccountKey): Promise<void>;
}

/** The account a catcher stores unclaimed mail in and opens the login-free dashboard as. */
export interface LocalAccount {
  tenantId: string;
  environmentId: string;
  userId: string;
  email: string;
  apiKey: string;
}

const ACCOUNT_NAME = 'Local';

/**
 * docs/local.md: the local account is the tenant of the user `local@<mail domain>`, so every node
 * sharing a database finds the same one. It is made on first start, on the pro plan; its user has
 * a random password nobody knows (the login-free dashboard does not need one; an operator can add
 * users to the tenant with `mailroom user create --tenant`).
 */
export class LocalAccountService {
  constructor(
    private readonly repos: Repositories,
    private readonly tenants: TenantService,
    private readonly keys: LocalAccountKeyStore,
    private readonly mailDomain: string,
  ) {}

  get email(): string {
    return `local@${this.mailDomain}`;
  }

  async ensure(): Promise<LocalAccount> {
    const user = await this.repos.users.getByEmail(this.email);
    if (user === undefined) return this.create();
    const apiKey = await this.validKey(user.tenantId);
    return { tenantId: user.tenantId, environmentId: await this.tenants.productionEnvironmentId(user.tenantId), userId: user.id, email: user.email, apiKey };
  }

  /** The stored key while it still works; otherwise a new one, stored in its place. */
  private async validKey(tenantId: string): Promise<string> {
    const stored = await this.keys.read();
    if (stored?.tenantId === tenantId) {
      const record = await this.repos.apiKeys.getByHash(hashApiKey(stored.apiKey));
      const usable = record !== undefined && record.active && record.tenantId === tenantId && record.expiresAt === null && record.inboxId === null;
      if (usable) return stored.apiKey;
    }
    const issued = await this.tenants.issueKey(tenantId, 'Local mode key');
    await this.keys.write({ tenantId, apiKey: issued.key });
    return issued.key;
  }

  private async create(): Promise<LocalAccount> {
    const passwordHash = await hashPassword(randomBytes(24).toString('base64url'));
    const user: Omit<User, 'tenantId'> = { id: randomUUID(), email: this.email, passwordHash, createdAt: new Date().toISOString(), lastSignInAt: null };
    const created = await this.tenants.create({ name: ACCOUNT_NAME, plan: 'pro' }, (repos, tenant) => repos.users.insert({ ...user, tenantId: tenant.id }));
    await this.keys.write({ tenantId: created.tenant.id, apiKey: created.apiKey });
    return { tenantId: created.tenant.id, environmentId: created.environmentId, userId: user.id, email: user.email, apiKey: created.apiKey };
  }
}
