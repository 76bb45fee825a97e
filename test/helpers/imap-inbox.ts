import { expect } from 'vitest';
import type { TestApp } from './test-app.js';

export interface ImapInbox {
  id: string;
  address: string;
  /** An inbox-scoped key with the imap scope (and api, when asked for). */
  key: string;
}

/** An inbox and an inbox-scoped key for it, made through the REST API as a user would. */
export async function createImapInbox(t: TestApp, prefix: string, scopes: string[] = ['imap']): Promise<ImapInbox> {
  const inbox = await t.http.post('/api/v1/inboxes', { prefix });
  expect(inbox.status).toBe(201);
  const key = await t.http.post(`/api/v1/inboxes/${inbox.json().id}/api-keys`, { name: 'imap', scopes });
  expect(key.status).toBe(201);
  return { id: inbox.json().id, address: inbox.json().address, key: key.json().key };
}
