import { AppError } from '../../core/errors.js';

export interface SmtpReply {
  code: number;
  message: string;
}

/**
 * Domain errors to SMTP replies, one row per kind with the reason for the code.
 * 5xx: the fault is in the message or address, retrying will not help. 4xx: the fault is ours
 * or temporary, the sender keeps the message and retries.
 */
export function smtpReplyFor(error: unknown): SmtpReply {
  if (!(error instanceof AppError)) {
    // Anything unexpected is treated as our fault: better a retry than a lost message.
    return { code: 451, message: '4.3.0 Temporary failure, please try again later' };
  }
  switch (error.kind) {
    case 'not_found':
      // RFC 3463 5.1.1: bad destination mailbox address.
      return { code: 550, message: `5.1.1 ${error.message}` };
    case 'invalid':
      // RFC 3463 5.3.4: too big for the system (more parts than we store), not malformed.
      if (error.code === 'TOO_MANY_ATTACHMENTS') return { code: 552, message: `5.3.4 ${error.message}` };
      // 5.6.0: the content could not be processed; resending the same bytes fails the same way.
      return { code: 554, message: `5.6.0 ${error.message}` };
    case 'forbidden':
      return { code: 550, message: `5.7.1 ${error.message}` };
    case 'rate_limited':
      // 4.2.2: mailbox full / quota exceeded is temporary from the sender's side (RFC 3463).
      return { code: 452, message: `4.2.2 ${error.message}` };
    case 'unavailable':
    case 'upstream':
    case 'conflict':
    case 'unauthenticated':
      return { code: 451, message: `4.3.0 ${error.message}` };
  }
}

export function smtpError(reply: SmtpReply): Error & { responseCode: number } {
  return Object.assign(new Error(reply.message), { responseCode: reply.code });
}
