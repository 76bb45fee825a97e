/**
 * The Connect page's copyable snippets, written from GET /api/v1/connection (this server's real
 * settings) so each one works as pasted. Plain functions without DOM access:
 * test/integration/connect-snippets.test.ts runs the nodemailer and curl ones against a real server.
 */

/** The part of GET /api/v1/connection the snippets need (kept structural so this file imports nothing). */
export interface ConnectionFacts {
  smtp: { host: string; port: number; security: 'none' | 'starttls-optional'; selfSignedCertificate: boolean; auth: 'not-offered' | 'any-credentials' };
  imap: { host: string; port: number; selfSignedCertificate: boolean };
  api: { selfSignedCertificate: boolean };
}

export interface SnippetTarget {
  connection: ConnectionFacts;
  /** Where the dashboard reaches the API, without /api/v1 (the page's own origin). */
  origin: string;
  /** The inbox the snippets send to and read from; a placeholder when the account has none yet. */
  inbox: { id: string; address: string };
}

export type SnippetId = 'nodemailer' | 'smtplib' | 'curl' | 'client' | 'playwright' | 'imap' | 'mcp';

export interface Snippet {
  id: SnippetId;
  title: string;
  language: string;
  code: string;
}

const SAMPLE_TEXT = 'Your verification code is 482913. Or open https://app.example/verify?token=abc123';

const js = (value: string) => `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
const sh = (value: string) => `'${value.replace(/'/g, "'\\''")}'`;
const py = (value: string) => JSON.stringify(value);

function nodemailerOptions({ smtp }: ConnectionFacts): string[] {
  const lines = [`  host: ${js(smtp.host)},`, `  port: ${smtp.port},`, '  secure: false, // no implicit TLS here'];
  if (smtp.security === 'none') lines.push('  // plain SMTP: this server offers no STARTTLS');
  else if (smtp.selfSignedCertificate) lines.push("  // STARTTLS is offered with a self-signed certificate", '  tls: { rejectUnauthorized: false },');
  else lines.push('  // STARTTLS is offered; nodemailer upgrades on its own');
  lines.push(smtp.auth === 'not-offered' ? '  // no auth: this server does not offer AUTH (a login would get 535)' : "  // auth is optional: any user name and password are accepted, e.g. auth: { user: 'app', pass: 'x' }");
  return lines;
}

function nodemailer(t: SnippetTarget): string {
  return [
    "import nodemailer from 'nodemailer';",
    '',
    'const transport = nodemailer.createTransport({',
    ...nodemailerOptions(t.connection),
    '});',
    '',
    'const info = await transport.sendMail({',
    "  from: 'app@example.com',",
    `  to: ${js(t.inbox.address)},`,
    "  subject: 'Verify your email',",
    `  text: ${js(SAMPLE_TEXT)},`,
    '});',
    "console.log(info.response); // 250 Message accepted <email id>",
  ].join('\n');
}

function smtplib(t: SnippetTarget): string {
  const { smtp } = t.connection;
  const starttls =
    smtp.security === 'none'
      ? ['    # plain SMTP: this server offers no STARTTLS']
      : smtp.selfSignedCertificate
        ? ['    smtp.starttls(context=ssl._create_unverified_context())  # self-signed certificate']
        : ['    smtp.starttls()'];
  return [
    ...(smtp.selfSignedCertificate && smtp.security !== 'none' ? ['import ssl'] : []),
    'import smtplib',
    'from email.message import EmailMessage',
    '',
    'msg = EmailMessage()',
    'msg["From"] = "app@example.com"',
    `msg["To"] = ${py(t.inbox.address)}`,
    'msg["Subject"] = "Verify your email"',
    `msg.set_content(${py(SAMPLE_TEXT)})`,
    '',
    `with smtplib.SMTP(${py(smtp.host)}, ${smtp.port}) as smtp:`,
    ...starttls,
    smtp.auth === 'not-offered' ? '    # no smtp.login(): this server does not offer AUTH' : '    # smtp.login() is optional: any user name and password are accepted',
    '    smtp.send_message(msg)',
  ].join('\n');
}

/** -k only where the certificate is the server's self-signed one (`--cacert data/tls/self-signed.crt` is the strict way). */
const curlTls = (facts: ConnectionFacts) => (facts.api.selfSignedCertificate ? ' -k' : '');

function curl(t: SnippetTarget): string {
  const base = `${t.origin}/api/v1`;
  const tls = curlTls(t.connection);
  return [
    '# An API key from the API keys page',
    "export MAILROOM_API_KEY='mr_…'",
    ...(tls === '' ? [] : ['# -k: this server uses a self-signed certificate (or trust it with --cacert data/tls/self-signed.crt)']),
    '',
    '# The newest emails',
    `curl -s${tls} -w '\\n' ${sh(`${base}/emails?perPage=5`)} -H "x-api-key: $MAILROOM_API_KEY"`,
    '',
    '# Wait up to 30 s for the next message of the inbox (204 when none arrives)',
    `curl -s${tls} -w '\\n' ${sh(`${base}/inboxes/${t.inbox.id}/messages/wait?timeout=30000`)} -H "x-api-key: $MAILROOM_API_KEY"`,
  ].join('\n');
}

const clientSetup = (t: SnippetTarget) => [
  "import { MailroomClient } from 'mailroom/client';",
  '',
  ...(t.connection.api.selfSignedCertificate ? ['// Self-signed certificate: run with NODE_EXTRA_CA_CERTS=data/tls/self-signed.crt'] : []),
  `const mailroom = new MailroomClient({ baseUrl: ${js(t.origin)}, apiKey: process.env.MAILROOM_API_KEY! });`,
];

function client(t: SnippetTarget): string {
  return [
    ...clientSetup(t),
    '',
    `const message = await mailroom.waitForMessage(${js(t.inbox.id)}, { timeout: 30_000 });`,
    'console.log(message?.subject, message?.extracted?.otp, message?.extracted?.magicLink);',
  ].join('\n');
}

function playwright(t: SnippetTarget): string {
  return [
    "import { test, expect } from '@playwright/test';",
    ...clientSetup(t),
    '',
    "test('sign-up with the emailed code', async ({ page }) => {",
    '  const inbox = await mailroom.inboxes.create({ ttlSeconds: 600 });',
    "  await page.goto('https://your-app.example/signup');",
    "  await page.getByLabel('Email').fill(inbox.address);",
    "  await page.getByRole('button', { name: 'Sign up' }).click();",
    '',
    '  const message = await mailroom.waitForMessage(inbox.id, { timeout: 30_000 });',
    '  const code = message?.extracted?.otp;',
    '  expect(code).toBeTruthy();',
    "  await page.getByLabel('Code').fill(code!);",
    '  // or follow the verification link instead:',
    '  // await page.goto(message!.extracted!.magicLink!);',
    '});',
  ].join('\n');
}

function imap(t: SnippetTarget): string {
  const { imap: server } = t.connection;
  return [
    '# Password: an inbox-scoped key with the imap scope (made once with a tenant-level key)',
    `curl -s${curlTls(t.connection)} ${sh(`${t.origin}/api/v1/inboxes/${t.inbox.id}/api-keys`)} -H "x-api-key: $MAILROOM_API_KEY" \\`,
    `  -H 'content-type: application/json' -d '{"name": "imap", "scopes": ["imap"]}'`,
    '',
    '# List the inbox over IMAP (implicit TLS)',
    `curl${server.selfSignedCertificate ? ' -k' : ''} ${sh(`imaps://${server.host}:${server.port}/INBOX`)} --user ${sh(`${t.inbox.address}:mr_…`)} -X 'SEARCH ALL'`,
  ].join('\n');
}

function mcp(t: SnippetTarget): string {
  const env: Record<string, string> = { MAILROOM_API_URL: t.origin, MAILROOM_API_KEY: 'mr_…' };
  if (t.connection.api.selfSignedCertificate) env.NODE_EXTRA_CA_CERTS = '/path/to/mailroom/data/tls/self-signed.crt';
  return JSON.stringify({ mcpServers: { mailroom: { command: 'npx', args: ['mailroom', 'mcp'], env } } }, null, 2);
}

export function connectSnippets(t: SnippetTarget): Snippet[] {
  return [
    { id: 'nodemailer', title: 'Send with nodemailer', language: 'JavaScript', code: nodemailer(t) },
    { id: 'smtplib', title: 'Send with Python smtplib', language: 'Python', code: smtplib(t) },
    { id: 'curl', title: 'Read with curl (REST API)', language: 'Shell', code: curl(t) },
    { id: 'client', title: 'Read with the TypeScript client', language: 'TypeScript', code: client(t) },
    { id: 'playwright', title: 'Playwright: wait for the mail, use its code', language: 'TypeScript', code: playwright(t) },
    { id: 'imap', title: 'Read over IMAP', language: 'Shell', code: imap(t) },
    { id: 'mcp', title: 'MCP server for an AI agent (.mcp.json)', language: 'JSON', code: mcp(t) },
  ];
}
