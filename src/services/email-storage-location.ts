import { parseCustomBlobKey, storagePathOf, type CustomStorageLocation } from '../core/custom-storage.js';
import type { Repositories } from '../adapters/db/repositories/index.js';

/**
 * Where an email is when it is in a customer's bucket (webhook payloads, spec 2.9), read from the
 * blob keys on its rows; undefined when it is in the service store (or gone).
 */
export async function locateEmail(repos: Repositories, tenantId: string, emailId: string): Promise<CustomStorageLocation | undefined> {
  const keys = await repos.storageConfigs.emailBlobKeys(tenantId, emailId);
  const eml = keys === undefined ? undefined : parseCustomBlobKey(keys.emlKey);
  if (keys === undefined || eml === undefined) return undefined;
  const sealed = await repos.storageConfigs.byId(eml.storageId);
  if (sealed === undefined) return undefined;
  const { storage } = sealed;
  const pathOf = (key: string) => storagePathOf(storage, parseCustomBlobKey(key)?.objectPath ?? key);
  return {
    provider: storage.provider,
    bucket: storage.bucket,
    storagePath: pathOf(keys.emlKey),
    attachmentPaths: Object.fromEntries(keys.attachments.map((a) => [a.id, pathOf(a.blobKey)])),
  };
}
