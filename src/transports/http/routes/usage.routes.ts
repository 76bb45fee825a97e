import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { PLANS } from '../../../core/vocab.js';
import type { UsageService } from '../../../services/usage.service.js';
import { errorResponses } from '../schemas/common.js';

const Limits = {
  requestsPerMinute: Type.Integer({ description: 'API requests per minute for the whole account' }),
  monthlyEmails: Type.Integer({ description: 'Emails received per calendar month (UTC)' }),
  customStorage: Type.Boolean({ description: 'Whether mail may be stored in your own bucket' }),
  maxResources: Type.Object(
    {
      webhooks: Type.Integer(),
      chatappIntegrations: Type.Integer(),
      inboxes: Type.Integer(),
    },
    { description: 'How many of each the account may hold at once; creating one more answers 403 PLAN_LIMIT_REACHED' },
  ),
};

const UsageSchema = Type.Object(
  {
    month: Type.String({ description: 'The usage month, YYYY-MM (UTC)', examples: ['2026-11'] }),
    periodStart: Type.String({ format: 'date-time', description: 'When this usage month began (UTC)' }),
    resetsAt: Type.String({ format: 'date-time', description: 'When the month ends and the count starts again from 0' }),
    emails: Type.Object({
      used: Type.Integer({ description: 'Emails received this month; deleting emails does not lower it' }),
      limit: Type.Integer({ description: "This account's monthly quota; past it, mail is refused at RCPT TO with 452 4.2.2" }),
      remaining: Type.Integer(),
    }),
    webhooks: Type.Object(
      {
        deliveries: Type.Integer({ description: 'Webhook delivery attempts this month (WEBHOOK log entries), retries included' }),
        succeeded: Type.Integer({ description: 'Attempts answered with 2xx' }),
        failed: Type.Integer({ description: 'Attempts that failed (each retry counts)' }),
      },
      { description: 'Webhook deliveries this month; they do not count against a quota' },
    ),
    plan: Type.Object({ name: Type.Union(PLANS.map((plan) => Type.Literal(plan))), ...Limits }, { description: "This account's plan and effective limits" }),
    plans: Type.Record(Type.String(), Type.Object(Limits), { description: 'Every plan and its limits' }),
    limitsEnforced: Type.Boolean({ description: 'false when this server runs without limits (MAILROOM_LIMITS=off, e.g. `mailroom local`): no quota, no rate limit' }),
  },
  { title: 'Usage' },
);

const TenantSchema = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    plan: Type.Union(PLANS.map((plan) => Type.Literal(plan))),
    limits: Type.Object(Limits, { description: "The plan's limits with any operator exceptions applied" }),
    createdAt: Type.String({ format: 'date-time' }),
  },
  { title: 'Tenant' },
);

/** The account (GET /tenant) and its month's usage (GET /usage); both need a tenant-level key. */
export function registerUsageRoutes(app: FastifyInstance, usage: UsageService): void {
  app.get('/tenant', {
    schema: { tags: ['Usage'], summary: 'The account this key belongs to: id, name, plan and effective limits', response: { 200: TenantSchema, ...errorResponses } },
    handler: async (request) => usage.tenant(request.caller),
  });

  app.get('/usage', {
    schema: { tags: ['Usage'], summary: "This month's email count against the quota, and the plan's limits", response: { 200: UsageSchema, ...errorResponses } },
    handler: async (request) => usage.usage(request.caller),
  });
}
