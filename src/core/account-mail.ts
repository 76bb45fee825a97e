/** The mails of dashboard accounts (docs/dashboard.md). Plain text: nothing to render, nothing to track. */

/** A mail Mailroom itself sends to a dashboard user (verification, password reset). */
export interface OutboundMessage {
  to: string;
  subject: string;
  text: string;
}

export function verifySignupMail(to: string, link: string, validHours: number): OutboundMessage {
  return {
    to,
    subject: 'Confirm your Mailroom account',
    text: [
      'Someone (we hope you) created a Mailroom account with this address.',
      '',
      'Open this link to confirm it and sign in:',
      link,
      '',
      `The link works once, for ${validHours} hours. If it was not you, ignore this mail: no account is made without it.`,
    ].join('\n'),
  };
}

export function existingAccountMail(to: string, signInUrl: string, resetUrl: string): OutboundMessage {
  return {
    to,
    subject: 'Sign-up attempt for your Mailroom account',
    text: [
      'Someone tried to create a Mailroom account with this address, but you already have one.',
      '',
      `If it was you, sign in: ${signInUrl}`,
      `Forgot your password? Reset it: ${resetUrl}`,
      '',
      'If it was not you, ignore this mail: nothing has changed.',
    ].join('\n'),
  };
}

export function resetPasswordMail(to: string, link: string, validMinutes: number): OutboundMessage {
  return {
    to,
    subject: 'Reset your Mailroom password',
    text: [
      'Someone (we hope you) asked to reset the password of your Mailroom account.',
      '',
      'Open this link to choose a new password:',
      link,
      '',
      `The link works once, for ${validMinutes} minutes; setting a new password signs out every session.`,
      'If it was not you, ignore this mail: your password stays as it is.',
    ].join('\n'),
  };
}
