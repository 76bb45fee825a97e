import { MailroomApiError, MailroomClient } from '../../src/client/index.js';
import { watchedFetch } from './connectivity.js';
import { sessionFetch } from './session.js';

/** The typed SDK over the public API, authenticated with the session JWT (see session.ts). */
export const api = new MailroomClient({ baseUrl: location.origin, apiKey: '', fetch: watchedFetch(sessionFetch) });

/** The API's own message for a failed call (every form shows it), or a generic one for network errors. */
export function errorMessage(error: unknown): string {
  if (error instanceof MailroomApiError) return error.message.replace(/^\d+ [A-Z_]+: /, '') || error.code;
  if (error instanceof TypeError) return 'The server cannot be reached; try again in a moment';
  if (error instanceof Error) return error.message;
  return 'Something went wrong';
}

/** Saves a Blob (attachment, raw EML) under a file name: the API needs the auth header, so plain links cannot. */
export function saveBlob(blob: Blob, filename: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = filename;
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
