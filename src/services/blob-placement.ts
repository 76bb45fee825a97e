import { blobKeys } from '../adapters/blobs/blob-keys.js';

/** Where ingest writes one email's blobs, and what the database keeps of it. */
export interface EmailBlobPlacement {
  emlKey: string;
  attachmentKey(attachmentId: string, filename: string): string;
  /** The tenant chose metadata-only storage: no bodies and no snippet in the database. */
  metadataOnly: boolean;
}

/** Chooses, per tenant, the store and key layout of new mail (docs/storage.md). */
export interface BlobPlacements {
  placeEmail(tenantId: string, emailId: string, receivedAt: string): Promise<EmailBlobPlacement>;
}

/** The service store's layout: emails/<tenant>/<yyyy-mm-dd>/<email>.… (docs/storage.md) */
export const servicePlacement = (tenantId: string, emailId: string, receivedAt: string): EmailBlobPlacement => ({
  emlKey: blobKeys.eml(tenantId, emailId, receivedAt),
  attachmentKey: (attachmentId) => blobKeys.attachment(tenantId, emailId, receivedAt, attachmentId),
  metadataOnly: false,
});

/** Every tenant in the service store (apps and tests without custom storage). */
export const SERVICE_PLACEMENTS: BlobPlacements = {
  placeEmail: async (tenantId, emailId, receivedAt) => servicePlacement(tenantId, emailId, receivedAt),
};
