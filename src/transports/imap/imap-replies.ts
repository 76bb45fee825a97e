import { AppError } from '../../core/errors.js';
import { bad, no, type Completion } from './session.js';

/** AppError kind → tagged reply with an RFC 5530 response code; the one mapping for IMAP. */
const CODES: Record<AppError['kind'], string> = {
  invalid: '',
  unauthenticated: '[AUTHENTICATIONFAILED]',
  forbidden: '[NOPERM]',
  not_found: '[NONEXISTENT]',
  conflict: '[INUSE]',
  rate_limited: '[LIMIT]',
  unavailable: '[UNAVAILABLE]',
  upstream: '[UNAVAILABLE]',
};

/** `internal` is true for faults that are ours (logged at error, with details hidden from the client). */
export function completionForError(error: unknown): { completion: Completion; internal: boolean } {
  if (error instanceof AppError) {
    if (error.kind === 'invalid') return { completion: bad(error.message), internal: false };
    return { completion: no(`${CODES[error.kind]} ${error.message}`), internal: error.kind === 'unavailable' };
  }
  return { completion: no('[SERVERBUG] Internal error; try again'), internal: true };
}
