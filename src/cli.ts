#!/usr/bin/env -S MALLOC_ARENA_MAX=2 node --max-semi-space-size=2
// V8 sizes the main isolate's young generation only from node's command line, and glibc reads its arena
// limit only from the environment: an 8 MB young generation instead of 32 and two malloc arenas instead of
// one per thread cut ~30 MB of peak RSS under ingest (docs/decisions.md D41, D49). npm start, the
// Dockerfile and the systemd unit set both too.
import { parseArgs } from 'node:util';
import { createDatabase, migrateToLatestOrThrow } from './adapters/db/database.js';
import { SecretBox, loadStorageEncryptionKey } from './adapters/secrets/secret-box.js';
import { createRepositories, createUnitOfWork, type Repositories } from './adapters/db/repositories/index.js';
import { loadSessionSecret } from './adapters/secrets/session-secret.js';
import { AccountService, DEFAULT_ACCOUNT_SETTINGS } from './services/account.service.js';
import { ConfigError, loadConfig } from './config/config.js';
import { readEnv, SETTINGS, type RawEnv } from './config/env.js';
import { withLocalPreset } from './config/local-settings.js';
import { VERSION } from './version.js';
import { PLANS, type PlanName } from './core/vocab.js';
import { effectiveLimits, emailRetentionDays, PLAN_LIMITS } from './core/plans.js';
import type { Tenant } from './adapters/db/repositories/tenant.repository.js';
import { AppError } from './core/errors.js';
import { TenantService } from './services/tenant.service.js';
import { setEmailRetention } from './services/retention.service.js';
import { mcpClientSettings } from './config/mcp-settings.js';

const USAGE = `Usage: mailroom <command> [--help]

Commands:
  local                                   Catch every message on this machine: SMTP 127.0.0.1:1025, dashboard
                                          and API http://127.0.0.1:8025 without a login (docs/local.md)
  serve                                   Run the service (HTTPS API and dashboard, SMTP, IMAP)
  migrate                                 Apply database migrations and exit
  tenant create --name N [--plan ${PLANS.join('|')}] [--json]
                                          Create a tenant and print its first API key
  tenant list [--json]                    List tenants
  tenant set-plan --id ID --plan ${PLANS.join('|')} Change a tenant's plan
  tenant set-limits --id ID [--requests-per-minute N|plan] [--monthly-emails N|plan]
                                          Override a tenant's plan limits ("plan" restores the plan's value)
  tenant set-retention --id ID --days N|plan
                                          Keep the tenant's emails N days (1-36500; "plan" restores the plan's period)
  tenant create-key --id ID [--name N] [--json]
                                          Issue a new all-environment API key (recovery when every key is lost)
  user create --email E --password-stdin [--tenant ID] [--json]
                                          Create a dashboard user (password read from stdin); without
                                          --tenant, with a new free-plan account. Works when sign-up is closed
  user set-password --email E --password-stdin
                                          Set a dashboard user's password (signs out their sessions)
  doctor                                  Check settings, DNS (MX, PTR), ports, certificate, database, Redis
                                          and blob store; prints what is wrong, exits 1 if anything is
  mcp                                     Run an MCP server on stdio for AI agents, calling the API at
                                          MAILROOM_API_URL with MAILROOM_API_KEY (mailroom mcp --help)
  plans [--json]                          Show every plan's limits
  settings                                List every environment variable with its default

Options: --help, -h (usage of a command; starts nothing), --version
Admin commands (migrate, tenant, user) open the database the MAILROOM_* settings name (MAILROOM_DATA_DIR,
MAILROOM_DATABASE_URL): run them with the same settings as the server. --local: the settings of \`mailroom local\`.
`;

/** The usage lines of one command (an entry and its indented continuation lines). */
function usageOf(command: string | undefined): string {
  const entries = USAGE.split('\n').reduce<string[][]>((all, line) => {
    if (/^ {2}\S/.test(line)) all.push([line]);
    else if (/^ {3,}\S/.test(line) && all.length > 0) all[all.length - 1]?.push(line);
    return all;
  }, []);
  const own = entries.filter((entry) => entry[0]?.trimStart().split(' ')[0] === command);
  return own.length === 0 ? USAGE : `Usage:\n${own.map((entry) => entry.join('\n')).join('\n')}\n`;
}

const MCP_USAGE = `Usage: mailroom mcp

Runs a Model Context Protocol server on stdin/stdout. Its tools (list_inboxes, wait_for_inbox_message,
list_emails, get_email, create_webhook, get_usage, …) call the Mailroom REST API with one key.

Environment:
  MAILROOM_API_URL   Base address of the API (default https://localhost:8443; /api/v1 may be included)
  MAILROOM_API_KEY   API key (required); an inbox-scoped key limits the agent to that inbox
  NODE_EXTRA_CA_CERTS  Path of a PEM file to trust, e.g. data/tls/self-signed.crt of a local Mailroom

Example .mcp.json entry:
  {"mcpServers": {"mailroom": {"command": "npx", "args": ["mailroom", "mcp"],
    "env": {"MAILROOM_API_URL": "https://mailroom.example.com", "MAILROOM_API_KEY": "mr_…"}}}}

See docs/mcp.md.
`;

async function mcpCommand(args: string[]): Promise<void> {
  parseArgs({ args, options: {} });
  const settings = mcpClientSettings(readEnv());
  // Loaded only here: the MCP SDK and zod would slow every other command's start.
  const { runStdioMcpServer } = await import('./transports/mcp/stdio.js');
  await runStdioMcpServer(settings, VERSION);
}

/** A mistake in the command line itself: exit 64 (EX_USAGE) with the usage text. */
class UsageError extends Error {}

/** Exit codes from sysexits.h, so scripts can tell a typo from a bad setting from a failure. */
const EXIT_USAGE = 64;
const EXIT_CONFIG = 78;

/** The commands that open the server's data; `--local` points them at `mailroom local`'s. */
const ADMIN_COMMANDS = new Set(['migrate', 'tenant', 'user', 'doctor']);

/** The settings admin commands use: the server's (MAILROOM_*), or `mailroom local`'s with --local. */
let adminEnv: RawEnv = readEnv();

async function withTenants<T>(work: (tenants: TenantService, repos: Repositories) => Promise<T>): Promise<T> {
  const config = loadConfig(adminEnv);
  const target = config.db;
  // On stderr, so --json output stays one document: which database a key or tenant went to.
  console.error(`mailroom: database ${target.dialect === 'sqlite' ? target.path : target.url.replace(/\/\/[^@/]*@/, '//…@')}`);
  const db = createDatabase(target);
  try {
    await migrateToLatestOrThrow(db, { sealer: new SecretBox(await loadStorageEncryptionKey(config.storage.encryptionKey, config.dataDir)) });
    const repos = createRepositories(db.kysely);
    return await work(new TenantService(repos, createUnitOfWork(db.kysely)), repos);
  } finally {
    await db.close();
  }
}

function plan(value: string | undefined): PlanName | undefined {
  if (value === undefined) return undefined;
  if (!(PLANS as readonly string[]).includes(value)) throw new UsageError(`--plan: expected one of ${PLANS.join(', ')}`);
  return value as PlanName;
}

/** `N` sets an override, `plan` removes it (null), absent keeps the current one (undefined). */
function limitOverride(option: string, value: string | undefined): number | null | undefined {
  if (value === undefined) return undefined;
  if (value === 'plan') return null;
  if (!/^\d{1,9}$/.test(value)) throw new UsageError(`${option}: expected a whole number or "plan"`);
  return Number(value);
}

/** `N` days (1 to 100 years) or `plan` (null: the plan's period). */
function retentionOverride(value: string | undefined): number | null {
  if (value === undefined) throw new UsageError('--days is required');
  if (value === 'plan') return null;
  if (!/^\d{1,5}$/.test(value) || Number(value) < 1 || Number(value) > 36_500) throw new UsageError('--days: expected a whole number of days from 1 to 36500, or "plan"');
  return Number(value);
}

function describeLimits(tenant: Tenant): string {
  const limits = effectiveLimits(tenant.plan, tenant.limitOverrides);
  return `${limits.requestsPerMinute} requests/minute, ${limits.monthlyEmails} emails/month, custom storage ${limits.customStorage ? 'yes' : 'no'}`;
}

function printPlans(json: boolean): void {
  if (json) return console.log(JSON.stringify({ plans: PLAN_LIMITS }));
  for (const name of PLANS) {
    const limits = PLAN_LIMITS[name];
    console.log(`${name.padEnd(6)} ${String(limits.requestsPerMinute).padStart(6)} requests/minute  ${String(limits.monthlyEmails).padStart(8)} emails/month  custom storage ${limits.customStorage ? 'yes' : 'no'}`);
  }
}

async function tenantCommand(args: string[]): Promise<void> {
  const [sub, ...rest] = args;
  const { values } = parseArgs({
    args: rest,
    options: {
      name: { type: 'string' },
      plan: { type: 'string' },
      id: { type: 'string' },
      json: { type: 'boolean', default: false },
      'requests-per-minute': { type: 'string' },
      'monthly-emails': { type: 'string' },
      days: { type: 'string' },
    },
  });
  if (sub === 'create') {
    if (values.name === undefined) throw new UsageError('--name is required');
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
    if (values.id === undefined) throw new UsageError('--id is required');
    const newPlan = plan(values.plan);
    if (newPlan === undefined) throw new UsageError('--plan is required');
    const tenant = await withTenants((t) => t.setPlan(values.id as string, newPlan));
    console.log(values.json ? JSON.stringify({ tenant }) : `Tenant ${tenant.id} is now on plan ${tenant.plan} (${describeLimits(tenant)})`);
    return;
  }
  if (sub === 'set-limits') {
    if (values.id === undefined) throw new UsageError('--id is required');
    const id = values.id;
    const requestsPerMinute = limitOverride('--requests-per-minute', values['requests-per-minute']);
    const monthlyEmails = limitOverride('--monthly-emails', values['monthly-emails']);
    const tenant = await withTenants(async (t) => {
      const current = (await t.getOrThrow(id)).limitOverrides;
      return t.setLimitOverrides(id, {
        requestsPerMinute: requestsPerMinute === undefined ? current.requestsPerMinute : requestsPerMinute,
        monthlyEmails: monthlyEmails === undefined ? current.monthlyEmails : monthlyEmails,
      });
    });
    console.log(values.json ? JSON.stringify({ tenant }) : `Tenant ${tenant.id}: ${describeLimits(tenant)}`);
    return;
  }
  if (sub === 'set-retention') {
    if (values.id === undefined) throw new UsageError('--id is required');
    const id = values.id;
    const days = retentionOverride(values.days);
    const tenant = await withTenants(async (t, repos) => {
      await setEmailRetention(repos.operations, id, days);
      return t.getOrThrow(id);
    });
    const effective = emailRetentionDays(tenant.plan, days);
    console.log(values.json ? JSON.stringify({ tenant, emailRetentionDays: effective }) : `Tenant ${tenant.id} keeps emails ${effective} days${days === null ? ` (plan ${tenant.plan})` : ''}`);
    return;
  }
  if (sub === 'create-key') {
    if (values.id === undefined) throw new UsageError('--id is required');
    const id = values.id;
    const issued = await withTenants((t) => t.issueKey(id, values.name ?? 'Recovery key'));
    if (values.json) console.log(JSON.stringify({ id: issued.record.id, prefix: issued.record.prefix, apiKey: issued.key }));
    else console.log(`API key ${issued.record.prefix}… for tenant ${id} (shown once): ${issued.key}`);
    return;
  }
  throw new UsageError(`unknown tenant subcommand "${sub ?? ''}"`);
}

/** The whole of stdin without its final line break: passwords stay out of argv and shell history. */
async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
}

async function userCommand(args: string[]): Promise<void> {
  const [sub, ...rest] = args;
  const { values } = parseArgs({
    args: rest,
    options: { email: { type: 'string' }, 'password-stdin': { type: 'boolean', default: false }, tenant: { type: 'string' }, json: { type: 'boolean', default: false } },
  });
  if (sub !== 'create' && sub !== 'set-password') throw new UsageError(`unknown user subcommand "${sub ?? ''}"`);
  if (values.email === undefined) throw new UsageError('--email is required');
  if (!values['password-stdin']) throw new UsageError(`--password-stdin is required (pipe the password in, e.g. printf %s "$PW" | mailroom user ${sub} …)`);
  if (sub === 'set-password' && (values.tenant !== undefined || values.json)) throw new UsageError('user set-password takes only --email and --password-stdin');
  const password = await readStdin();
  const config = loadConfig(adminEnv);
  const withAccounts = <T>(work: (accounts: AccountService) => Promise<T>) =>
    withTenants(async (tenants, repos) => work(new AccountService(repos, tenants, await loadSessionSecret(config), { ...DEFAULT_ACCOUNT_SETTINGS, signup: config.accounts.signup })));
  if (sub === 'set-password') {
    await withAccounts((accounts) => accounts.setPassword(values.email as string, password));
    return console.log(`New password set for ${values.email}; their sessions are signed out`);
  }
  const { user, tenant } = await withAccounts((accounts) => accounts.createUser({ email: values.email as string, password, tenantId: values.tenant }));
  if (values.json) console.log(JSON.stringify({ user: { id: user.id, email: user.email, tenantId: user.tenantId, createdAt: user.createdAt }, tenant }));
  else console.log(`User ${user.email} (${user.id}) in tenant ${tenant.name} (${tenant.id}, plan ${tenant.plan})`);
}

/** Exit 1 when any check fails, so deploy scripts can gate on it; a bad setting is a failed check too. */
async function doctor(): Promise<void> {
  // Imported when needed: the blob-store SDKs it probes with are slow to load.
  const { diagnose, formatFinding } = await import('./doctor/doctor.js');
  let config;
  try {
    config = loadConfig(adminEnv);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.log(formatFinding({ check: 'configuration', status: 'fail', detail: error.message }));
    process.exit(1);
  }
  const findings = await diagnose(config);
  for (const finding of findings) console.log(formatFinding(finding));
  const failed = findings.filter((f) => f.status === 'fail').length;
  console.log(failed === 0 ? 'No problems found.' : `${failed} problem(s) found.`);
  process.exit(failed === 0 ? 0 : 1);
}

async function main(argv: string[]): Promise<void> {
  if (argv.includes('--help') || argv.includes('-h')) return console.log(argv[0] === 'mcp' ? MCP_USAGE : usageOf(argv[0]));
  if (argv[0] === '--version' || argv[0] === '-v') return console.log(VERSION);
  const [command, ...args] = argv;
  const local = ADMIN_COMMANDS.has(command ?? '') && args.includes('--local');
  if (local) adminEnv = withLocalPreset(adminEnv);
  const rest = local ? args.filter((arg) => arg !== '--local') : args;
  switch (command) {
    case undefined:
      throw new UsageError('a command is required (mailroom serve runs the service, mailroom local the local catcher)');
    case 'serve':
      if (rest.length > 0) throw new UsageError(`serve takes no arguments, got "${rest.join(' ')}"`);
      // Imported when needed: --help and the admin commands do not load the whole service.
      return (await import('./main.js')).serve(readEnv());
    case 'local':
      if (rest.length > 0) throw new UsageError(`local takes no arguments, got "${rest.join(' ')}"`);
      return (await import('./main.js')).serve(withLocalPreset(readEnv()), 'local');
    case 'migrate':
      await withTenants(async () => undefined);
      console.log('Database is up to date.');
      return;
    case 'tenant':
      return tenantCommand(rest);
    case 'user':
      return userCommand(rest);
    case 'doctor':
      return doctor();
    case 'mcp':
      return mcpCommand(rest);
    case 'plans':
      return printPlans(rest.includes('--json'));
    case 'settings':
      for (const s of SETTINGS) console.log(`${s.name.padEnd(34)} ${s.default.padEnd(24)} ${s.description}`);
      return;
    case 'help':
      console.log(usageOf(rest[0]));
      return;
    default:
      throw new UsageError(`unknown command "${command}"`);
  }
}

/** node:util parseArgs rejects unknown or malformed options with these codes. */
const isArgumentError = (error: unknown): boolean =>
  error instanceof Error && String((error as { code?: unknown }).code).startsWith('ERR_PARSE_ARGS_');

main(process.argv.slice(2)).catch((error: unknown) => {
  if (error instanceof UsageError || isArgumentError(error)) {
    console.error(`mailroom: ${(error as Error).message}\n\n${USAGE}`);
    process.exit(EXIT_USAGE);
  }
  if (error instanceof ConfigError) {
    console.error(`mailroom: invalid configuration: ${error.message}`);
    process.exit(EXIT_CONFIG);
  }
  if (error instanceof AppError) {
    console.error(`mailroom: ${error.message}`);
    process.exit(1);
  }
  console.error(error);
  process.exit(1);
});
