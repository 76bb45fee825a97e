import { randomBytes, randomUUID } from 'node:crypto';
import type { Caller } from '../core/api-key.js';
import { parseStorageInput, providerErrorName, type CustomStorage, type StorageCredentials, type StorageInput, type StorageTarget } from '../core/custom-storage.js';
import { ForbiddenError, InvalidInputError, NotFoundError } from '../core/errors.js';
import type { Repositories, UnitOfWork } from '../adapters/db/repositories/index.js';
import type { SecretBox } from '../adapters/secrets/secret-box.js';
import type { BlobStore } from '../ports/blob-store.js';
import type { Logger } from '../logger.js';
import type { TenantLimits } from './tenant-limits.js';
import type { OpenCustomStore, TenantBlobStores } from './tenant-blob-stores.js';

/** A probe that has not finished by then counts as a failure: a PUT must not hang on a dead endpoint. */
const PROBE_TIMEOUT_MS = 20_000;

export interface CustomStorageDependencies {
  repos: Repositories;
  unitOfWork: UnitOfWork;
  limits: TenantLimits;
  secrets: SecretBox;
  stores: TenantBlobStores;
  openCustom: OpenCustomStore;
  /** Rejects endpoints the service must not connect to (InvalidInputError); a no-op where private ones are allowed. */
  guardEndpoints(target: StorageTarget, credentials: StorageCredentials): Promise<void>;
  /** A failed probe's details go here, not into the reply: they may quote whatever the endpoint answered. */
  logger: Logger;
}

const notConfigured = () => new NotFoundError('STORAGE_NOT_CONFIGURED', 'This account has no custom storage; its mail is kept by the service');

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms / 1000} s`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/** Writes, reads back and deletes one small object: the credentials can do all ingest and downloads need. */
async function probe(store: BlobStore): Promise<void> {
  const key = `.mailroom-probe-${randomUUID()}`;
  const bytes = randomBytes(32);
  await store.put(key, bytes, 'application/octet-stream');
  const back = await store.getBuffer(key);
  if (!back.equals(bytes)) throw new Error('the probe object read back different bytes');
  await store.delete(key);
}

/**
 * GET/PUT/DELETE /storage (docs/storage.md): a tenant's own bucket for new mail, on plans that allow
 * it, set with a tenant-level key (not an environment- or inbox-scoped one: storage is account-wide).
 */
export class CustomStorageService {
  constructor(private readonly deps: CustomStorageDependencies) {}

  async get(caller: Caller): Promise<CustomStorage> {
    const current = await this.deps.repos.storageConfigs.current(caller.tenantId);
    if (current === undefined) throw notConfigured();
    return current.storage;
  }

  async put(caller: Caller, input: StorageInput): Promise<CustomStorage> {
    await this.assertMayConfigure(caller);
    const { target, credentials, metadataOnly } = parseStorageInput(input);
    await this.deps.guardEndpoints(target, credentials);
    try {
      await withTimeout(this.deps.openCustom(target, credentials).then(probe), PROBE_TIMEOUT_MS);
    } catch (error) {
      this.deps.logger.warn({ err: error, tenantId: caller.tenantId, provider: target.provider, bucket: target.bucket }, 'custom storage probe failed');
      throw new InvalidInputError(
        'STORAGE_CHECK_FAILED',
        `${target.provider} bucket "${target.bucket}" failed the write/read/delete check (${providerErrorName(error)}): check the bucket, region, endpoint and credentials; the server log has the provider's full answer`,
      );
    }
    const storage: CustomStorage = { id: randomUUID(), tenantId: caller.tenantId, ...target, metadataOnly, createdAt: new Date().toISOString() };
    const credentialsSealed = this.deps.secrets.seal(JSON.stringify(credentials), storage.id);
    await this.deps.unitOfWork(async (repos) => {
      await repos.storageConfigs.retireCurrent(caller.tenantId, storage.createdAt);
      await repos.storageConfigs.insert({ storage, credentialsSealed });
    });
    this.deps.stores.forget(caller.tenantId);
    return storage;
  }

  /** New mail goes back to the service store; mail already in the bucket stays there, readable. */
  async delete(caller: Caller): Promise<void> {
    this.assertTenantKey(caller);
    const retired = await this.deps.repos.storageConfigs.retireCurrent(caller.tenantId, new Date().toISOString());
    if (!retired) throw notConfigured();
    this.deps.stores.forget(caller.tenantId);
  }

  private async assertMayConfigure(caller: Caller): Promise<void> {
    this.assertTenantKey(caller);
    const { plan, limits } = await this.deps.limits.of(caller.tenantId);
    if (!limits.customStorage) throw new ForbiddenError('CUSTOM_STORAGE_NOT_IN_PLAN', `Custom storage is available on paid plans only; this account is on ${plan}`);
  }

  private assertTenantKey(caller: Caller): void {
    if (caller.environmentId !== null) throw new ForbiddenError('ENVIRONMENT_KEY_FORBIDDEN', 'Custom storage is account-wide: use a key that is not scoped to an environment');
  }
}
