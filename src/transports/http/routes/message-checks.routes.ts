import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { MessageCheckService } from '../../../services/message-check.service.js';
import { ErrorBody, errorResponses } from '../schemas/common.js';
import { HtmlCheckSchema, LinkCheckSchema } from '../schemas/message-checks.js';

const EmailIdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });

/** docs/checks.md: on-demand checks of one email, scoped like GET /emails/:id. */
export function registerMessageCheckRoutes(app: FastifyInstance, checks: MessageCheckService): void {
  const tags = ['Emails'];
  const inbox = { access: 'inbox' as const };

  app.get('/emails/:id/html-check', {
    config: inbox,
    schema: {
      tags,
      operationId: 'checkEmailHtml',
      summary: 'HTML and CSS support of the email\'s HTML body, per email client (caniemail data set)',
      params: EmailIdParams,
      response: {
        200: HtmlCheckSchema,
        ...errorResponses,
        409: Type.Ref(ErrorBody, { description: 'EMAIL_HAS_NO_HTML: the email has no HTML body' }),
        503: Type.Ref(ErrorBody, { description: 'HTML_CHECK_UNAVAILABLE: the support data set could not be loaded' }),
      },
    },
    handler: async (request) => checks.htmlCheck(request.caller, (request.params as { id: string }).id),
  });

  app.get('/emails/:id/link-check', {
    config: inbox,
    schema: {
      tags,
      operationId: 'checkEmailLinks',
      summary: 'Follow every link and image of the email and report each URL\'s status',
      params: EmailIdParams,
      response: { 200: LinkCheckSchema, ...errorResponses },
    },
    handler: async (request) => checks.linkCheck(request.caller, (request.params as { id: string }).id),
  });
}
