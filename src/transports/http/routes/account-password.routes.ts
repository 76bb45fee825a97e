import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { ForbiddenError } from '../../../core/errors.js';
import type { AccountService } from '../../../services/account.service.js';
import type { AccountLinkService } from '../../../services/account-link.service.js';
import { ErrorBody, errorResponses } from '../schemas/common.js';
import { SessionView, publicJsonRoute, requireJson, sendCheckEmail, sendSession, tags } from './auth.routes.js';

const NewPassword = Type.String({ minLength: 1, maxLength: 200, description: '8 to 200 characters, not one of the most common passwords' });
const LinkToken = Type.String({ minLength: 1, maxLength: 200, description: 'The `token` of the emailed link (after `#token=`)' });

const PasswordChange = Type.Object(
  { currentPassword: Type.String({ minLength: 1, maxLength: 200 }), newPassword: NewPassword },
  { additionalProperties: false, title: 'PasswordChange' },
);
const ResetRequest = Type.Object({ email: Type.String({ minLength: 1, maxLength: 254 }) }, { additionalProperties: false, title: 'PasswordResetRequest' });
const ResetConfirm = Type.Object({ token: LinkToken, password: NewPassword }, { additionalProperties: false, title: 'PasswordReset' });
const VerifyEmail = Type.Object({ token: LinkToken }, { additionalProperties: false, title: 'EmailVerification' });
const CheckEmail = Type.Object(
  { status: Type.Literal('check-email'), message: Type.String() },
  { title: 'PasswordResetRequested', description: 'The same answer whether or not the address has an account' },
);

const linkInvalid = Type.Ref(ErrorBody, { description: 'LINK_INVALID (used, expired or replaced link), or the new password breaks the rules (INVALID_PASSWORD, PASSWORD_TOO_COMMON)' });

function requireLinks(links: AccountLinkService | undefined): AccountLinkService {
  if (links === undefined) {
    throw new ForbiddenError('ACCOUNT_MAIL_OFF', 'This server sends no email (MAILROOM_SMTP_RELAY_URL is not set), so there are no emailed links; ask an operator to set a new password with `mailroom user set-password`');
  }
  return links;
}

/** docs/dashboard.md: password change (signed in), reset and sign-up verification by emailed link. */
export function registerAccountPasswordRoutes(app: FastifyInstance, accounts: AccountService, links: AccountLinkService | undefined): void {
  app.post('/auth/password', {
    onRequest: requireJson,
    schema: {
      tags,
      summary: 'Change the signed-in user\'s password; every other session of the user is signed out',
      description: 'Dashboard sessions only (Bearer JWT); an API key gets 403 SESSION_REQUIRED. Wrong current passwords count against the sign-in throttle.',
      body: PasswordChange,
      response: { 204: Type.Null({ description: 'Changed' }), ...errorResponses, 400: Type.Ref(ErrorBody, { description: 'WRONG_PASSWORD (field currentPassword), INVALID_PASSWORD or PASSWORD_TOO_COMMON (field newPassword)' }) },
    },
    handler: async (request, reply) => {
      await accounts.changePassword(request.caller, request.body as Static<typeof PasswordChange>, request.ip);
      return reply.status(204).send();
    },
  });

  app.post('/auth/password-reset', {
    ...publicJsonRoute,
    schema: {
      tags,
      summary: 'Mail a password-reset link to the address, if it has an account',
      description: '202 for every valid address, whether or not it has an account. 403 ACCOUNT_MAIL_OFF when the server sends no mail (`passwordReset: false` in /auth/config).',
      security: [],
      body: ResetRequest,
      response: { 202: CheckEmail, 400: errorResponses[400], 403: errorResponses[403], 429: errorResponses[429] },
    },
    handler: async (request, reply) => {
      await requireLinks(links).requestPasswordReset((request.body as Static<typeof ResetRequest>).email);
      return sendCheckEmail(reply, 'If the address has an account, a mail with a reset link is on its way.');
    },
  });

  app.post('/auth/password-reset/confirm', {
    ...publicJsonRoute,
    schema: {
      tags,
      summary: 'Set a new password with an emailed reset link; ends every session and signs in',
      description: 'Sets the HttpOnly refresh cookie. The link works once; a refused password leaves it working.',
      security: [],
      body: ResetConfirm,
      response: { 200: SessionView, 400: linkInvalid, 403: errorResponses[403], 429: errorResponses[429] },
    },
    handler: async (request, reply) => {
      const body = request.body as Static<typeof ResetConfirm>;
      return sendSession(reply, await requireLinks(links).resetPassword(body.token, body.password), 200);
    },
  });

  app.post('/auth/verify-email', {
    ...publicJsonRoute,
    schema: {
      tags,
      summary: 'Follow an emailed sign-up link: makes the account and signs in',
      description: 'Sets the HttpOnly refresh cookie. The link works once, for 24 hours. 409 EMAIL_TAKEN when the address got an account meanwhile.',
      security: [],
      body: VerifyEmail,
      response: { 201: SessionView, 400: linkInvalid, 403: errorResponses[403], 409: Type.Ref(ErrorBody, { description: 'EMAIL_TAKEN' }), 429: errorResponses[429] },
    },
    handler: async (request, reply) => sendSession(reply, await requireLinks(links).verifySignup((request.body as Static<typeof VerifyEmail>).token), 201),
  });
}
