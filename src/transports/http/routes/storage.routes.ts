import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { CustomStorageService } from '../../../services/custom-storage.service.js';
import { errorResponses } from '../schemas/common.js';
import { StorageBody, StorageSchema, toStorageView } from '../schemas/storage.js';

/** docs/storage.md: the account's own bucket (paid plans), with a tenant-level key. */
export function registerStorageRoutes(app: FastifyInstance, storage: CustomStorageService): void {
  const tags = ['Storage'];

  app.get('/storage', {
    schema: {
      tags,
      summary: "The account's custom storage, without credentials (404 STORAGE_NOT_CONFIGURED when mail stays with the service)",
      response: { 200: Type.Ref(StorageSchema), ...errorResponses },
    },
    handler: async (request) => toStorageView(await storage.get(request.caller)),
  });

  app.put('/storage', {
    schema: {
      tags,
      summary: 'Store new mail in your own bucket. Checked first by writing, reading and deleting a probe object (400 STORAGE_CHECK_FAILED with the provider\'s error); 403 on plans without custom storage',
      body: StorageBody,
      response: { 200: Type.Ref(StorageSchema, { description: 'Saved; mail from now on goes to the bucket' }), ...errorResponses },
    },
    handler: async (request) => toStorageView(await storage.put(request.caller, request.body as Static<typeof StorageBody>)),
  });

  app.delete('/storage', {
    schema: {
      tags,
      summary: 'Turn custom storage off: new mail is kept by the service again; mail already in the bucket stays there and readable',
      response: { 204: Type.Null({ description: 'Turned off' }), ...errorResponses },
    },
    handler: async (request, reply) => {
      await storage.delete(request.caller);
      return reply.status(204).send();
    },
  });
}
