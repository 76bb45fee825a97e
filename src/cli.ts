#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { createDatabase, migrateToLatestOrThrow } from './adapters/db/database.js';
import { createRepositories, createUnitOfWork } from './adapters/db/repositories/index.js';
import { ConfigError, loadConfig } from './config/config.js';
import { readEnv, SETTINGS } from './config/env.js';
import { PLANS, type PlanName } from './core/vocab.js';
import { AppError } from './core/errors.js';
import { serve } from './main.js';
import { TenantService } from './services/tenant.service.js';

const USAGE = `Usage: mailroom <command>

Commands:
  serve                                   Run the service (HTTPS API and dashboard, SMTP)
  migrate                                 Apply database migrations and exit
  tenant create --name N [--plan free|pro] [--json]
                                          Create a tenant and print its first API key
  tenant list [--json]                    List tenants
  tenant set-plan --id ID --plan free|pro Change a tenant's plan
  settings                                List every environment variable with its default
`;

async function withTenants<T>(work: (tenants: TenantService) => Promise<T>): Promise<T> {
  const db = createDatabase(loadConfig(readEnv()).db);
  try {
    await migrateToLatestOrThrow(db);
    return await work(new TenantService(createRepositories(db.kysely), createUnitOfWork(db.kysely)));
  } finally {
    await db.close();
  }
}

function plan(value: string | undefined): PlanName | undefined {
  if (value === undefined) return undefined;
  if (!(PLANS as readonly string[]).includes(value)) throw new ConfigError('--plan', `expected one of ${PLANS.join(', ')}`);
  return value as PlanName;
}

async function tenantCommand(args: string[]): Promise<void> {
  const [sub, ...rest] = args;
  const { values } = parseArgs({
    args: rest,
    options: { name: { type: 'string' }, plan: { type: 'string' }, id: { type: 'string' }, json: { type: 'boolean', default: false } },
  });
  if (sub === 'create') {
    if (values.name === undefined) throw new ConfigError('--name', 'is required');
    const created = await withTenants((t) => t.create({ name: values.name as string, plan: plan(values.plan) }));
    if (values.json) console.log(JSON.stringify({ tenant: created.tenant, apiKey: created.apiKey }));
    else console.log(`Tenant ${created.tenant.name} (${created.tenant.id}, plan ${created.tenant.plan})\nAPI key (shown once): ${created.apiKey}`);
    return;
  }
  if (sub === 'list') {
    const tenants = await withTenants((t) => t.list());
    if (values.json) console.log(JSON.stringify({ tenants }));
    else for (const t of tenants) console.log(`${t.id}  ${t.plan.padEnd(5)}  ${t.name}`);
    return;
  }
  if (sub === 'set-plan') {
    if (values.id === undefined) throw new ConfigError('--id', 'is required');
    const newPlan = plan(values.plan);
    if (newPlan === undefined) throw new ConfigError('--plan', 'is required');
    const tenant = await withTenants((t) => t.setPlan(values.id as string, newPlan));
    console.log(values.json ? JSON.stringify({ tenant }) : `Tenant ${tenant.id} is now on plan ${tenant.plan}`);
    return;
  }
  throw new ConfigError('tenant', `unknown subcommand "${sub ?? ''}"`);
}

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'serve':
    case undefined:
      return serve();
    case 'migrate':
      await withTenants(async () => undefined);
      console.log('Database is up to date.');
      return;
    case 'tenant':
      return tenantCommand(rest);
    case 'settings':
      for (const s of SETTINGS) console.log(`${s.name.padEnd(34)} ${s.default.padEnd(24)} ${s.description}`);
      return;
    case 'help':
    case '--help':
    case '-h':
      console.log(USAGE);
      return;
    default:
      console.error(`mailroom: unknown command "${command}"\n\n${USAGE}`);
      process.exit(64);
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  if (error instanceof ConfigError || error instanceof AppError) {
    console.error(`mailroom: ${error.message}`);
    process.exit(error instanceof ConfigError ? 78 : 1);
  }
  console.error(error);
  process.exit(1);
});
