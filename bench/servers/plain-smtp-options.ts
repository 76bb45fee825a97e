import type { SMTPServerOptions } from 'smtp-server';

/** smtp-server as the bench's servers run it: no AUTH or STARTTLS, no reverse lookup, no log; the rest as shipped (its 100 ms greeting pause included). */
export const PLAIN_SMTP_OPTIONS: SMTPServerOptions = {
  authOptional: true,
  disabledCommands: ['AUTH', 'STARTTLS'],
  disableReverseLookup: true,
  logger: false,
};
