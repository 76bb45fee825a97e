import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import {
  customBlobKey,
  customObjectPaths,
  parseCustomBlobKey,
  providerErrorName,
  storagePathOf,
  type CustomStorage,
  type StorageCredentials,
  type StorageTarget,
} from '../core/custom-storage.js';
import { AppError, NotFoundError, UnavailableError } from '../core/errors.js';
import { ExpiringCache } from '../core/expiring-cache.js';
import type { Repositories } from '../adapters/db/repositories/index.js';
import type { SealedStorage } from '../adapters/db/repositories/storage-config.repository.js';
import type { SecretBox } from '../adapters/secrets/secret-box.js';
import type { BlobInfo, BlobStore, ByteRange } from '../ports/blob-store.js';
import { servicePlacement, type BlobPlacements, type EmailBlobPlacement } from './blob-placement.js';

export type OpenCustomStore = (target: StorageTarget, credentials: StorageCredentials) => Promise<BlobStore>;

/** Bounds per-process memory; forgetting an entry costs one read (and one SDK client) again. */
const MAX_CACHED = 1_000;
/** Failed emails remembered so one bad bucket gives one log entry per email, not one per blob. */
const MAX_REPORTED = 1_000;

interface Route {
  store: BlobStore;
  key: string;
  storage?: CustomStorage;
}

/**
 * The one BlobStore every service uses. Keys of mail in a tenant's own bucket name the storage
 * configuration they were written with (`tenant-storage/<id>/<path>`, core/custom-storage.ts), so
 * reads, range reads and deletes (REST, IMAP, inbox expiry) go to the right bucket with no
 * caller knowing; every other key is the service store's. It also chooses where new mail goes
 * (BlobPlacements), from the tenant's current configuration, cached for `cacheMs`.
 */
export class TenantBlobStores implements BlobStore, BlobPlacements {
  private readonly current: ExpiringCache<string, SealedStorage | undefined>;
  private readonly opened = new Map<string, Promise<{ storage: CustomStorage; store: BlobStore }>>();
  private readonly reported = new Set<string>();

  constructor(
    private readonly service: BlobStore,
    private readonly repos: Repositories,
    private readonly secrets: SecretBox,
    private readonly openCustom: OpenCustomStore,
    cacheMs: number,
    private readonly onBackgroundError: (error: unknown) => void,
  ) {
    this.current = new ExpiringCache(cacheMs, MAX_CACHED);
  }

  async placeEmail(tenantId: string, emailId: string, receivedAt: string): Promise<EmailBlobPlacement> {
    const current = await this.currentOf(tenantId);
    if (current === undefined) return servicePlacement(tenantId, emailId, receivedAt);
    const { storage } = current;
    const folder = customObjectPaths.emailFolder(tenantId, emailId, receivedAt);
    return {
      emlKey: customBlobKey(storage.id, customObjectPaths.eml(folder)),
      attachmentKey: (attachmentId, filename) => customBlobKey(storage.id, customObjectPaths.attachment(folder, attachmentId, filename)),
      metadataOnly: storage.metadataOnly,
    };
  }

  /** A configuration changed on this node: new mail follows it at once (other nodes within cacheMs). */
  forget(tenantId: string): void {
    this.current.delete(tenantId);
  }

  put(key: string, data: Buffer | Readable, contentType: string): Promise<string> {
    return this.write(key, (store, routed) => store.put(routed, data, contentType));
  }

  putFile(key: string, path: string, contentType: string): Promise<string> {
    return this.write(key, (store, routed) => store.putFile(routed, path, contentType));
  }

  /** Resolves to the key to read the blob by: a custom store's own key again under its configuration's prefix. */
  private async write(key: string, work: (store: BlobStore, routedKey: string) => Promise<string>): Promise<string> {
    const route = await this.route(key);
    try {
      const stored = await work(route.store, route.key);
      return route.storage === undefined ? stored : customBlobKey(route.storage.id, stored);
    } catch (error) {
      if (route.storage === undefined) throw error;
      await this.reportFailedWrite(route.storage, route.key, error).catch(this.onBackgroundError);
      // The details (bucket, endpoint, provider error) go to the tenant's log, not to the sending server.
      throw new UnavailableError('CUSTOM_STORAGE_UNAVAILABLE', "the recipient's storage is unavailable");
    }
  }

  getStream(key: string, range?: ByteRange): Promise<Readable> {
    return this.through(key, (store, routed) => store.getStream(routed, range));
  }

  getBuffer(key: string): Promise<Buffer> {
    return this.through(key, (store, routed) => store.getBuffer(routed));
  }

  delete(key: string): Promise<void> {
    return this.through(key, (store, routed) => store.delete(routed));
  }

  exists(key: string): Promise<boolean> {
    return this.through(key, (store, routed) => store.exists(routed));
  }

  /** The service store only: customers' buckets are theirs, and the orphan sweep never lists them. */
  list(prefix: string): AsyncIterable<BlobInfo> {
    return this.service.list(prefix);
  }

  /**
   * A customer's bucket failing (revoked credentials, outage) is reported as such (503), not as our
   * own error; a missing object stays a NotFoundError.
   */
  private async through<T>(key: string, work: (store: BlobStore, routedKey: string) => Promise<T>): Promise<T> {
    const route = await this.route(key);
    try {
      return await work(route.store, route.key);
    } catch (error) {
      if (route.storage === undefined || error instanceof AppError) throw error;
      this.onBackgroundError(error);
      throw new UnavailableError('CUSTOM_STORAGE_UNAVAILABLE', `Your ${route.storage.provider} bucket "${route.storage.bucket}" could not be read (${providerErrorName(error)})`);
    }
  }

  private async route(key: string): Promise<Route> {
    const custom = parseCustomBlobKey(key);
    if (custom === undefined) return { store: this.service, key };
    const { storage, store } = await this.openedStore(custom.storageId);
    return { store, key: custom.objectPath, storage };
  }

  private currentOf(tenantId: string, now = Date.now()): Promise<SealedStorage | undefined> {
    return this.current.get(tenantId, () => this.repos.storageConfigs.current(tenantId), now);
  }

  /** Configurations never change once saved (a PUT makes a new one), so an opened store is kept. */
  private openedStore(storageId: string): Promise<{ storage: CustomStorage; store: BlobStore }> {
    const cached = this.opened.get(storageId);
    if (cached !== undefined) return cached;
    if (this.opened.size >= MAX_CACHED) this.opened.clear();
    const opening = this.repos.storageConfigs.byId(storageId).then(async (sealed) => {
      if (sealed === undefined) throw new NotFoundError('BLOB_NOT_FOUND', `storage configuration ${storageId} is gone`);
      const credentials = JSON.parse(this.secrets.open(sealed.credentialsSealed, storageId)) as StorageCredentials;
      return { storage: sealed.storage, store: await this.openCustom(sealed.storage, credentials) };
    });
    this.opened.set(storageId, opening);
    opening.catch(() => this.opened.delete(storageId));
    return opening;
  }

  /** The activity log says why the sender got a 451: once per email, naming the bucket and the provider's error. */
  private async reportFailedWrite(storage: CustomStorage, objectPath: string, error: unknown): Promise<void> {
    const emailFolder = objectPath.split('/').slice(0, 5).join('/');
    if (this.reported.has(emailFolder)) return;
    if (this.reported.size >= MAX_REPORTED) this.reported.clear();
    this.reported.add(emailFolder);
    const emailId = objectPath.split('/')[4] ?? null;
    this.onBackgroundError(error);
    const reason = providerErrorName(error);
    await this.repos.logs.append([
      {
        id: randomUUID(),
        tenantId: storage.tenantId,
        environmentId: null,
        emailId: null,
        type: 'SMTP_RECEIVED',
        status: 'FAILED',
        message: `Email not accepted: your ${storage.provider} bucket "${storage.bucket}" could not be written (${reason}). The sending server was told to retry later (451); nothing was stored.`,
        metadata: { reason: 'CUSTOM_STORAGE_UNAVAILABLE', intendedEmailId: emailId, provider: storage.provider, bucket: storage.bucket, storagePath: storagePathOf(storage, objectPath), error: reason },
        createdAt: new Date().toISOString(),
      },
    ]);
  }
}
