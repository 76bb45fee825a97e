import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { EnvironmentService } from '../../../services/environment.service.js';
import { ErrorBody, IdParam, errorResponses } from '../schemas/common.js';
import { EnvironmentSchema, toEnvironmentView } from '../schemas/environment.js';

const CreateEnvironmentBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100 }),
    slug: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'Lower-case letters, digits and inner hyphens; derived from name when absent' })),
  },
  { additionalProperties: false },
);

const conflict = { 409: Type.Ref(ErrorBody, { description: 'ENVIRONMENT_EXISTS (same slug) or ENVIRONMENT_IN_USE (inboxes, emails or keys still belong to it)' }) };

export function registerEnvironmentRoutes(app: FastifyInstance, environments: EnvironmentService): void {
  const tags = ['Environments'];

  app.get('/environments', {
    schema: {
      tags,
      summary: "List the account's environments (an environment-scoped key sees only its own)",
      response: { 200: Type.Object({ data: Type.Array(Type.Ref(EnvironmentSchema)) }, { title: 'EnvironmentList' }), ...errorResponses },
    },
    handler: async (request) => ({ data: (await environments.list(request.caller)).map(toEnvironmentView) }),
  });

  app.post('/environments', {
    schema: {
      tags,
      summary: 'Create an environment (keys scoped to all environments only)',
      body: CreateEnvironmentBody,
      response: { 201: Type.Ref(EnvironmentSchema), ...errorResponses, ...conflict },
    },
    handler: async (request, reply) => {
      const created = await environments.create(request.caller, request.body as Static<typeof CreateEnvironmentBody>);
      return reply.status(201).send(toEnvironmentView(created));
    },
  });

  app.delete('/environments/:id', {
    schema: {
      tags,
      summary: 'Delete an empty environment (production: 400 PRODUCTION_ENVIRONMENT)',
      params: IdParam,
      response: { 204: Type.Null({ description: 'Deleted' }), ...errorResponses, ...conflict },
    },
    handler: async (request, reply) => {
      await environments.delete(request.caller, (request.params as Static<typeof IdParam>).id);
      return reply.status(204).send();
    },
  });
}
