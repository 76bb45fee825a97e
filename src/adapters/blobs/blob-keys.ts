const SAFE_SEGMENT = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

function segment(value: string): string {
  if (!SAFE_SEGMENT.test(value) || value.includes('..')) throw new Error(`unsafe blob key segment: ${value}`);
  return value;
}

/** Blob keys are built only here, from ids we minted, so no key can climb out of its folder. */
export const blobKeys = {
  /** Every email's blobs in the service store are under this. */
  root: 'emails/',
  /** The email a service-store key belongs to (the orphan sweep asks whether its row still exists). */
  emailIdOf: (key: string): string | undefined => /^emails\/[^/]+\/([^/]+)\//.exec(key)?.[1],
  emailPrefix: (tenantId: string, emailId: string) => `emails/${segment(tenantId)}/${segment(emailId)}/`,
  eml: (tenantId: string, emailId: string) => `${blobKeys.emailPrefix(tenantId, emailId)}message.eml`,
  attachment: (tenantId: string, emailId: string, attachmentId: string) =>
    `${blobKeys.emailPrefix(tenantId, emailId)}attachments/${segment(attachmentId)}`,
};
