import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../helpers/cli.js';
import { TEST_DIALECTS, warnIfPostgresSkipped } from '../helpers/databases.js';
import { httpsFetch } from '../helpers/https-fetch.js';
import { sendMail } from '../helpers/smtp-client.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

warnIfPostgresSkipped();

const TOOL_NAMES = [
  'list_inboxes', 'get_inbox', 'create_inbox', 'list_emails', 'get_email', 'search_emails', 'download_email', 'delete_email',
  'mark_as_read', 'mark_as_unread', 'wait_for_email', 'list_attachments', 'get_attachment', 'list_webhooks', 'get_webhook',
  'create_webhook', 'update_webhook', 'delete_webhook', 'list_domains', 'get_domain', 'check_domain_verification', 'get_tenant',
  'get_usage', 'wait_for_inbox_message',
];

type Transport = 'stdio' | 'http';

/** Every tool answers JSON text; this parses it and says whether it was an error. */
async function call(client: Client, name: string, args: Record<string, unknown> = {}) {
  const result = await client.callTool({ name, arguments: args });
  const [content] = result.content as Array<{ type: string; text: string }>;
  return { isError: result.isError === true, json: JSON.parse(content?.text ?? 'null') };
}

describe.each(TEST_DIALECTS)('MCP server (%s)', (dialect) => {
  let t: TestApp;
  const clients: Client[] = [];
  const fetches: Array<{ close(): void }> = [];

  beforeAll(async () => {
    t = await startTestApp({ dialect });
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    for (const f of fetches) f.close();
    await t?.stop();
  });

  /** `mailroom mcp` from source; it trusts the test app's self-signed certificate only through NODE_EXTRA_CA_CERTS. */
  function stdioTransport(apiKey: string, trustCertificate = true) {
    const inherited = Object.fromEntries(
      Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined && !e[0].startsWith('MAILROOM_') && e[0] !== 'NODE_EXTRA_CA_CERTS'),
    );
    const ca: Record<string, string> = trustCertificate ? { NODE_EXTRA_CA_CERTS: join(t.dataDir, 'tls', 'self-signed.crt') } : {};
    return new StdioClientTransport({
      command: process.execPath,
      args: ['--import', 'tsx', 'src/cli.ts', 'mcp'],
      cwd: PROJECT_ROOT,
      env: { ...inherited, MAILROOM_API_URL: `${t.baseUrl}/api/v1`, MAILROOM_API_KEY: apiKey, ...ca },
      stderr: 'pipe',
    });
  }

  function httpTransport(headers: Record<string, string>) {
    const fetch = httpsFetch(t.ca);
    fetches.push(fetch);
    return new StreamableHTTPClientTransport(new URL('/api/v1/mcp', t.baseUrl), { requestInit: { headers }, fetch });
  }

  async function connect(transport: Transport, apiKey: string, header: 'x-api-key' | 'bearer' = 'x-api-key'): Promise<Client> {
    const client = new Client({ name: 'mailroom-test', version: '1.0.0' });
    const headers: Record<string, string> = header === 'bearer' ? { authorization: `Bearer ${apiKey}` } : { 'x-api-key': apiKey };
    await client.connect(transport === 'stdio' ? stdioTransport(apiKey) : httpTransport(headers));
    clients.push(client);
    return client;
  }

  describe.each(['stdio', 'http'] as const)('over %s', (transport) => {
    let mcp: Client;
    beforeAll(async () => {
      mcp = await connect(transport, t.tenant.apiKey, transport === 'http' ? 'bearer' : 'x-api-key');
    }, 30_000);

    it('lists every tool', async () => {
      const { tools } = await mcp.listTools();
      expect(tools.map((tool) => tool.name).sort()).toEqual([...TOOL_NAMES].sort());
    });

    it('creates an inbox, and wait_for_inbox_message returns the code and link of mail sent over SMTP', async () => {
      const created = await call(mcp, 'create_inbox', { name: 'Sign-up test' });
      expect(created).toMatchObject({ isError: false, json: { name: 'Sign-up test', address: expect.stringContaining('@') } });
      const inbox = created.json as { id: string; address: string };
      const waiting = call(mcp, 'wait_for_inbox_message', { inboxId: inbox.id, timeout: 20_000 });
      await sendMail(t.smtpPort, {
        from: 'noreply@service.test',
        to: inbox.address,
        subject: 'Confirm your account',
        text: 'Your verification code is 602114.\nOr open https://app.service.test/verify?token=abc123',
      });
      const { isError, json } = await waiting;
      expect(isError).toBe(false);
      expect(json).toMatchObject({ found: true, code: '602114', link: 'https://app.service.test/verify?token=abc123', message: { inboxId: inbox.id } });
      const listed = await call(mcp, 'list_emails', { inboxId: inbox.id, limit: 5 });
      expect(listed.json).toMatchObject({ data: [{ subject: 'Confirm your account' }], nextCursor: null });
      const eml = await call(mcp, 'download_email', { emailId: json.message.emailId });
      expect(eml.json.eml).toContain('Subject: Confirm your account');
    }, 30_000);

    it('answers API errors as JSON with the error body', async () => {
      const missing = await call(mcp, 'get_email', { emailId: '00000000-0000-4000-8000-000000000000' });
      expect(missing).toMatchObject({ isError: true, json: { error: { statusCode: 404, code: 'EMAIL_NOT_FOUND' } } });
      const tenant = await call(mcp, 'get_tenant');
      expect(tenant.json).toMatchObject({ id: t.tenant.id, plan: 'pro', limits: { monthlyEmails: expect.any(Number) } });
    });

    it('an inbox-scoped key reaches only its own inbox', async () => {
      const own = (await t.http.post('/api/v1/inboxes', {})).json() as { id: string };
      const other = (await t.http.post('/api/v1/inboxes', {})).json() as { id: string };
      const key = (await t.http.post(`/api/v1/inboxes/${own.id}/api-keys`, { name: 'agent', scopes: ['api'] })).json() as { key: string };
      const scoped = await connect(transport, key.key);
      expect(await call(scoped, 'get_inbox', { inboxId: own.id })).toMatchObject({ isError: false, json: { id: own.id } });
      expect(await call(scoped, 'get_inbox', { inboxId: other.id })).toMatchObject({ isError: true, json: { error: { statusCode: 403 } } });
      expect(await call(scoped, 'list_emails', { inboxId: other.id })).toMatchObject({ isError: true, json: { error: { statusCode: 403 } } });
      expect(await call(scoped, 'wait_for_inbox_message', { inboxId: other.id, timeout: 0 })).toMatchObject({ isError: true, json: { error: { statusCode: 403 } } });
      const listed = await call(scoped, 'list_inboxes');
      expect((listed.json as { data: Array<{ id: string }> }).data.map((inbox) => inbox.id)).toEqual([own.id]);
      expect(await call(scoped, 'create_inbox', {})).toMatchObject({ isError: true, json: { error: { statusCode: 403 } } });
    }, 30_000);
  });

  it('mailroom mcp refuses the self-signed certificate unless NODE_EXTRA_CA_CERTS names it', async () => {
    const client = new Client({ name: 'mailroom-test', version: '1.0.0' });
    await client.connect(stdioTransport(t.tenant.apiKey, false));
    clients.push(client);
    const result = await call(client, 'get_tenant');
    expect(result).toMatchObject({ isError: true, json: { error: { code: 'REQUEST_FAILED', message: expect.stringMatching(/certificate/i) } } });
  }, 30_000);

  it('reports arguments the tool schema refuses as an error result', async () => {
    const client = await connect('http', t.tenant.apiKey);
    const result = await client.callTool({ name: 'list_emails', arguments: { limit: 500 } });
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain('limit');
  });

  it('the HTTP endpoint refuses a request without a valid key (401)', async () => {
    const fetch = httpsFetch(t.ca);
    fetches.push(fetch);
    const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } };
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const anonymous = await fetch(new URL('/api/v1/mcp', t.baseUrl), { method: 'POST', headers, body: JSON.stringify(initialize) });
    expect(anonymous.status).toBe(401);
    const wrong = await fetch(new URL('/api/v1/mcp', t.baseUrl), { method: 'POST', headers: { ...headers, authorization: 'Bearer mr_not_a_key' }, body: JSON.stringify(initialize) });
    expect(wrong.status).toBe(401);
  });
});

/** `mailroom mcp` from source with only the given MAILROOM_* settings; generous timeout for a loaded machine. */
function runMcpCli(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('MAILROOM_')));
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'mcp', ...args], { cwd: PROJECT_ROOT, env: { ...inherited, ...env }, timeout: 150_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

it('mailroom mcp --help explains the settings; without MAILROOM_API_KEY it exits 78 naming it', async () => {
  const [help, missing] = await Promise.all([runMcpCli(['--help'], {}), runMcpCli([], { MAILROOM_API_URL: 'https://localhost:1' })]);
  expect(help).toMatchObject({ code: 0, stdout: expect.stringContaining('MAILROOM_API_KEY') });
  expect(help.stdout).toContain('NODE_EXTRA_CA_CERTS');
  expect(missing.code).toBe(78);
  expect(missing.stderr).toContain('MAILROOM_API_KEY');
}, 160_000);
