import { InvalidInputError } from '../core/errors.js';
import { prefixProblem } from '../core/inbox-address.js';

/** At most this many aliases per inbox. */
export const MAX_ALIASES = 10;

const invalidAlias = (index: number, message: string) => new InvalidInputError('INVALID_ALIAS', message, { field: `aliases.${index}` });

/**
 * Aliases as stored: full, lower-cased addresses on the inbox's domain, without duplicates or the
 * inbox's own address. A bare local part (`sales`) means that name on the inbox's domain; an
 * address on another domain, or a local part that would not be a valid prefix, is refused.
 */
export function normaliseAliases(values: readonly string[], inbox: { address: string; domain: string }): string[] {
  if (values.length > MAX_ALIASES) throw new InvalidInputError('INVALID_ALIAS', `An inbox has at most ${MAX_ALIASES} aliases`, { field: 'aliases' });
  const aliases = new Set<string>();
  values.forEach((value, index) => {
    const given = value.trim().toLowerCase();
    const at = given.lastIndexOf('@');
    const local = at === -1 ? given : given.slice(0, at);
    if (at !== -1 && given.slice(at + 1) !== inbox.domain) {
      throw invalidAlias(index, `aliases.${index} must be an address on the inbox's domain ${inbox.domain}`);
    }
    if (prefixProblem(local) !== undefined) throw invalidAlias(index, `aliases.${index} is not a valid local part (letters, digits and . ! # $ % & ' * + / = ? ^ _ \` { | } ~ -, no role names)`);
    const address = `${local}@${inbox.domain}`;
    if (address !== inbox.address) aliases.add(address);
  });
  return [...aliases];
}
