import { InvalidInputError } from '../core/errors.js';
import type { HttpSender } from '../ports/http-sender.js';

const MAX_URL_LENGTH = 2048;

/** Validates a customer-supplied notification URL (scheme, length, egress policy) and returns it trimmed. */
export async function checkedDestination(sender: HttpSender, url: string): Promise<string> {
  const trimmed = url.trim();
  const problem = trimmed.length > MAX_URL_LENGTH ? `must be at most ${MAX_URL_LENGTH} characters` : await sender.destinationProblem(trimmed);
  if (problem !== undefined) throw new InvalidInputError('INVALID_URL', `url ${problem}`, { field: 'url' });
  return trimmed;
}
