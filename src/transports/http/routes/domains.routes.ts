import type { Static } from '@sinclair/typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { failedRecords, type DomainService } from '../../../services/domain.service.js';
import { errorBody } from '../plugins/error-handler.js';
import { ErrorBody, errorResponses, IdParam } from '../schemas/common.js';
import {
  CreateDomainBody,
  DnsProviderSetupSchema,
  DomainDetailSchema,
  DomainNameParam,
  DomainSchema,
  SetupDnsProviderBody,
  VerificationFailedBody,
  VerifyDomainBody,
} from '../schemas/domain.js';

type IdParams = Static<typeof IdParam>;
type NameParams = Static<typeof DomainNameParam>;

/** Custom domains (spec 4.4); every route needs a tenant-level key. docs/domains.md describes the flow. */
export function registerDomainRoutes(app: FastifyInstance, domains: DomainService): void {
  const tags = ['Domains'];
  const detail = { 200: Type.Ref(DomainDetailSchema), ...errorResponses };

  app.get('/domains', {
    schema: { tags, summary: 'List the custom domains (a plain array, oldest first)', response: { 200: Type.Array(Type.Ref(DomainSchema)), ...errorResponses } },
    handler: async (request) => domains.list(request.caller),
  });

  app.post('/domains', {
    schema: {
      tags,
      summary: 'Add a custom domain; the answer lists the DNS records to publish',
      body: CreateDomainBody,
      response: { 201: Type.Ref(DomainDetailSchema), ...errorResponses, 409: Type.Ref(ErrorBody) },
    },
    handler: async (request, reply) => reply.status(201).send(await domains.add(request.caller, request.body as Static<typeof CreateDomainBody>)),
  });

  app.get('/domains/:id', {
    schema: { tags, summary: 'A domain with its DNS records and the last check of each', params: IdParam, response: detail },
    handler: async (request) => domains.get(request.caller, (request.params as IdParams).id),
  });

  app.get('/domains/:id/verify', {
    schema: {
      tags,
      summary: 'The verification status as last checked (no DNS lookup); POST /domains/:domain/verify checks now',
      params: IdParam,
      response: detail,
    },
    handler: async (request) => domains.get(request.caller, (request.params as IdParams).id),
  });

  app.post('/domains/:domain/verify', {
    schema: {
      tags,
      summary: 'Check the MX and TXT records now; 400 names every record that does not check out',
      params: DomainNameParam,
      body: VerifyDomainBody,
      response: { ...detail, 400: VerificationFailedBody },
    },
    handler: async (request, reply) => {
      const { code } = request.body as Static<typeof VerifyDomainBody>;
      const result = await domains.verify(request.caller, (request.params as NameParams).domain, code);
      const failed = failedRecords(result);
      if (failed.length === 0) return result;
      const message = `DNS verification of ${result.domain} failed: ${failed.map((record) => record.error ?? `${record.type} ${record.name} not checked`).join('; ')}`;
      return reply.status(400).send({ ...errorBody(400, 'DNS_VERIFICATION_FAILED', message), records: result.records });
    },
  });

  app.post('/domains/:domain/setup-dnsprovider', {
    schema: {
      tags,
      summary: "Create or update the MX and TXT records through the DNS provider's API, then check them",
      params: DomainNameParam,
      body: SetupDnsProviderBody,
      response: { 200: DnsProviderSetupSchema, ...errorResponses, 502: Type.Ref(ErrorBody) },
    },
    handler: async (request) => domains.setupDnsProvider(request.caller, (request.params as NameParams).domain, request.body as Static<typeof SetupDnsProviderBody>),
  });

  app.post('/domains/:id/enable', {
    schema: { tags, summary: 'Resume reception for the domain', params: IdParam, response: detail },
    handler: async (request) => domains.setEnabled(request.caller, (request.params as IdParams).id, true),
  });

  app.post('/domains/:id/disable', {
    schema: { tags, summary: 'Stop reception (RCPT TO answers 550); stored emails stay readable', params: IdParam, response: detail },
    handler: async (request) => domains.setEnabled(request.caller, (request.params as IdParams).id, false),
  });

  app.delete('/domains/:id', {
    schema: { tags, summary: "Delete the domain and its inboxes; catch-all emails stay in the account's emails", params: IdParam, response: { 204: Type.Null(), ...errorResponses } },
    handler: async (request, reply) => {
      await domains.delete(request.caller, (request.params as IdParams).id);
      return reply.status(204).send();
    },
  });
}
