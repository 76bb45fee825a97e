import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectSnippets, type ConnectionFacts, type Snippet, type SnippetId } from '../../web/src/connect-snippets.js';
import { LOCAL_TEST_ENV } from '../helpers/local-mode.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

const run = promisify(execFile);
/** Inside the repository, so the snippet's `import 'nodemailer'` resolves from its node_modules. */
const SCRATCH = join(process.cwd(), 'test-results', 'connect-snippets');

interface Connection extends ConnectionFacts {
  mailDomain: string;
  api: { baseUrl: string; keyHeader: string; selfSignedCertificate: boolean };
  smtp: ConnectionFacts['smtp'] & { acceptsAnyRecipient: boolean; maxMessageBytes: number };
  imap: ConnectionFacts['imap'] & { security: string };
}

const MODES = [
  { mode: 'serve', env: {} },
  { mode: 'local', env: LOCAL_TEST_ENV },
] as const;

describe.each(MODES)('The Connect page snippets work as pasted (%s)', ({ mode, env }) => {
  let t: TestApp;
  let connection: Connection;
  let snippets: Map<SnippetId, Snippet>;
  let inbox: { id: string; address: string };
  let origin: string;

  /** What a user does with a snippet: paste in their key (or have it in MAILROOM_API_KEY). */
  const withKey = (code: string, key = t.tenant.apiKey) => code.replaceAll('mr_…', key);
  const shell = (code: string) => run('sh', ['-c', code], { timeout: 40_000, env: { ...process.env, MAILROOM_API_KEY: t.tenant.apiKey } });
  /** Local mode answers plain HTTP, which the suite's HTTPS client does not speak. */
  const api = async <T>(path: string, body?: unknown): Promise<{ status: number; json: T }> => {
    if (mode === 'serve') {
      const answer = body === undefined ? await t.http.get(path) : await t.http.post(path, body);
      return { status: answer.status, json: answer.json<T>() };
    }
    const response = await fetch(`${origin.replace('localhost', '127.0.0.1')}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { 'x-api-key': t.tenant.apiKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, json: (await response.json()) as T };
  };
  const code = (id: SnippetId) => snippets.get(id)?.code ?? '';

  beforeAll(async () => {
    t = await startTestApp({ env });
    origin = `${t.app.ctx.config.local.httpTls ? 'https' : 'http'}://localhost:${t.addresses.http.port}`;
    connection = (await api<Connection>('/api/v1/connection')).json;
    inbox = (await api<{ id: string; address: string }>('/api/v1/inboxes', { prefix: `connect-${mode}` })).json;
    snippets = new Map(connectSnippets({ connection, origin, inbox }).map((s) => [s.id, s]));
    await mkdir(SCRATCH, { recursive: true });
  });
  afterAll(() => t?.stop());

  it('describes the running configuration', () => {
    const local = mode === 'local';
    expect(connection).toMatchObject({
      smtp: { host: '127.0.0.1', port: t.addresses.smtp.port, security: local ? 'none' : 'starttls-optional', auth: local ? 'any-credentials' : 'not-offered', acceptsAnyRecipient: local },
      imap: { host: '127.0.0.1', port: t.addresses.imap.port, security: 'implicit-tls', selfSignedCertificate: true },
      api: { keyHeader: 'x-api-key', selfSignedCertificate: !local },
      mailDomain: t.app.ctx.config.mailDomain,
    });
    expect(connection.api.baseUrl).toBe(`${t.app.ctx.config.publicUrl}/api/v1`);
  });

  it('refuses a request without a key, answers an inbox-scoped one', async () => {
    const status = mode === 'serve' ? (await t.client().get('/api/v1/connection')).status : (await fetch(`${origin.replace('localhost', '127.0.0.1')}/api/v1/connection`)).status;
    expect(status).toBe(401);
    const inboxKey = (await api<{ key: string }>(`/api/v1/inboxes/${inbox.id}/api-keys`, { name: 'app', scopes: ['api'] })).json.key;
    const asInbox = await fetch(`${origin.replace('localhost', '127.0.0.1')}/api/v1/connection`, { headers: { 'x-api-key': inboxKey } }).catch(() => undefined);
    if (mode === 'serve') expect((await t.client(inboxKey).get('/api/v1/connection')).status).toBe(200);
    else expect(asInbox?.status).toBe(200);
  });

  it('nodemailer sends to the inbox, then curl lists it and waits for it', async () => {
    const file = join(SCRATCH, `send-${mode}.mjs`);
    await writeFile(file, code('nodemailer'));
    const sent = await run(process.execPath, [file], { timeout: 20_000 });
    expect(sent.stdout).toMatch(/^250 Message accepted <[0-9a-f-]{36}>/);

    const read = await shell(withKey(code('curl')));
    const [list, waited] = read.stdout.trim().split('\n');
    expect(JSON.parse(list ?? '{}').data[0]).toMatchObject({ subject: 'Verify your email', to: [inbox.address] });
    expect(JSON.parse(waited ?? '{}')).toMatchObject({ subject: 'Verify your email', extracted: { otp: '482913' } });
  });

  it('Python smtplib sends to the inbox', async () => {
    await run('python3', ['-c', code('smtplib')], { timeout: 20_000 });
    const page = await api<{ totalItems: number }>(`/api/v1/emails?to=${encodeURIComponent(inbox.address)}`);
    expect(page.json.totalItems).toBe(2);
  });

  it('the IMAP snippet makes an inbox key and lists the inbox with it', async () => {
    const [makeKey, listImap] = code('imap').split('\n\n');
    const created = await shell(makeKey ?? '');
    const key = JSON.parse(created.stdout).key as string;
    const listed = await shell(withKey(listImap ?? '', key));
    expect(listed.stdout).toMatch(/^\* SEARCH 1 2\s*$/);
  });
});
