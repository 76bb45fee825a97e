import { isSegmentFile } from './segment-key.js';

const SAFE_SEGMENT = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

function segment(value: string): string {
  if (!SAFE_SEGMENT.test(value) || value.includes('..')) throw new Error(`unsafe blob key segment: ${value}`);
  return value;
}

/** An email id ends at the first dot of a file name, so it has none. */
function emailIdSegment(value: string): string {
  if (value.includes('.')) throw new Error(`unsafe email id: ${value}`);
  return segment(value);
}

/** The UTC day of an ISO timestamp, the folder a day's mail shares. */
function day(receivedAt: string): string {
  const date = receivedAt.slice(0, 10);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) throw new Error(`not an ISO timestamp: ${receivedAt}`);
  return date;
}

/** emails/<tenant>/<yyyy-mm-dd>/<email>.… : mail stored since D55, one flat folder per tenant and day. */
const DAY_LAYOUT = /^emails\/[^/]+\/\d{4}-\d{2}-\d{2}\/([^/.]+)\.[^/]+$/;
/** emails/<tenant>/<email>/… : mail stored before D55, a folder per email. Its keys are on its rows and still read. */
const FOLDER_LAYOUT = /^emails\/[^/]+\/([^/]+)\//;

/**
 * Blob keys are built only here, from ids we minted, so no key can climb out of its folder. New mail's
 * blobs are files side by side in a folder per tenant and day, so a disk store makes a folder once a
 * day, not once a message (docs/decisions.md D55). Nothing derives a key from an id after ingest: the
 * rows keep the keys, so mail stored under the older folder-per-email layout is read and deleted as before.
 */
export const blobKeys = {
  /** Every email's blobs in the service store are under this. */
  root: 'emails/',
  /**
   * The email a service-store key belongs to, in either layout and as a disk store's segment record
   * (`<key>#<segment>@<offset>`), so the orphan sweep can ask whether its row still exists. A segment
   * file listed on its own (`….seg`, no live record left in it) belongs to none.
   */
  emailIdOf: (key: string): string | undefined => (isSegmentFile(key.slice(key.lastIndexOf('/') + 1)) ? undefined : (DAY_LAYOUT.exec(key) ?? FOLDER_LAYOUT.exec(key))?.[1]),
  eml: (tenantId: string, emailId: string, receivedAt: string) => `${blobKeys.emailStem(tenantId, emailId, receivedAt)}.eml`,
  attachment: (tenantId: string, emailId: string, receivedAt: string, attachmentId: string) =>
    `${blobKeys.emailStem(tenantId, emailId, receivedAt)}.attachment.${segment(attachmentId)}`,
  emailStem: (tenantId: string, emailId: string, receivedAt: string) => `emails/${segment(tenantId)}/${day(receivedAt)}/${emailIdSegment(emailId)}`,
};
