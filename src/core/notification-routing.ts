/**
 * Which emails fire a webhook or chat-app integration: one linked to inboxes fires for the emails
 * arriving in any of those inboxes; one linked to no inbox fires for every email of its tenant.
 */
export function firesFor(targetInboxIds: readonly string[], emailInboxIds: readonly string[]): boolean {
  return targetInboxIds.length === 0 || targetInboxIds.some((id) => emailInboxIds.includes(id));
}
