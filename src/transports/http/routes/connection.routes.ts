import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { ConnectionInfoService } from '../../../services/connection-info.service.js';
import { errorResponses } from '../schemas/common.js';

const SelfSigned = Type.Boolean({ description: "TLS here uses the self-signed certificate of the server's data dir (MAILROOM_TLS_CERT is not set): clients must trust it or skip verification" });

const ConnectionSchema = Type.Object(
  {
    mailDomain: Type.String({ description: 'Inbox addresses are <prefix>@ this domain' }),
    api: Type.Object({
      baseUrl: Type.String({ description: 'MAILROOM_PUBLIC_URL followed by /api/v1' }),
      keyHeader: Type.Literal('x-api-key', { description: 'The header that carries an API key' }),
      selfSignedCertificate: SelfSigned,
    }),
    smtp: Type.Object({
      host: Type.String({ description: 'The listen address when it is one address (local mode: 127.0.0.1), otherwise MAILROOM_MX_HOST' }),
      port: Type.Integer({ description: 'The port SMTP listens on on this node' }),
      security: Type.Union([Type.Literal('none'), Type.Literal('starttls-optional')], {
        description: 'none: plain text only (no STARTTLS, no implicit TLS); starttls-optional: STARTTLS offered, not required. Never implicit TLS (port 465 style)',
      }),
      selfSignedCertificate: SelfSigned,
      auth: Type.Union([Type.Literal('not-offered'), Type.Literal('any-credentials')], {
        description: 'not-offered: send without AUTH (AUTH is answered 535); any-credentials: AUTH is optional and any user name and password are accepted',
      }),
      acceptsAnyRecipient: Type.Boolean({ description: 'true: mail to any address is kept (MAILROOM_ACCEPT_ANY_RECIPIENT); false: only addresses of inboxes and verified domains' }),
      maxMessageBytes: Type.Integer({ description: 'Largest message accepted' }),
    }),
    imap: Type.Object({
      host: Type.String({ description: 'As for SMTP' }),
      port: Type.Integer(),
      security: Type.Literal('implicit-tls', { description: 'TLS from the first byte (imaps://, "SSL/TLS"), not STARTTLS' }),
      selfSignedCertificate: SelfSigned,
    }, { description: 'User name: an inbox address; password: an inbox-scoped key with the imap scope (docs/imap.md)' }),
  },
  { title: 'Connection' },
);

/** docs/dashboard.md "Connect": how to reach this server, from its running configuration. */
export function registerConnectionRoutes(app: FastifyInstance, connection: ConnectionInfoService): void {
  app.get('/connection', {
    // Nothing here is secret, and the user of an inbox-scoped key needs the SMTP and IMAP settings too.
    config: { access: 'inbox' as const },
    schema: {
      tags: ['Connection'],
      operationId: 'getConnection',
      summary: "How to connect to this server: SMTP, IMAP and API addresses, TLS and AUTH as they are configured (any key with the api scope, inbox-scoped ones too)",
      response: { 200: ConnectionSchema, ...errorResponses },
    },
    handler: async () => connection.describe(),
  });
}
