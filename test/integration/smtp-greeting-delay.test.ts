import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';
import { SMTPConnection } from 'smtp-server/lib/smtp-connection.js';
import { afterEach, describe, expect, it } from 'vitest';
import { installGreetingDelayOption } from '../../src/transports/smtp/greeting-delay.js';
import { RawSmtpClient } from '../helpers/raw-smtp.js';

/**
 * Pins the smtp-server behaviour greeting-delay.ts replaces: the installed version waits a hard-coded
 * 100 ms before every greeting. If an upgrade changes SMTPConnection#init, these fail and the patch
 * must be re-checked against the new init.
 */
describe('SMTP greeting delay (smtp-server early-talker pause)', () => {
  const servers: SMTPServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
  });

  const listen = async (options: SMTPServerOptions & { greetingDelayMs?: number }): Promise<number> => {
    const server = new SMTPServer({ disableReverseLookup: true, logger: false, authOptional: true, ...options });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    return (server.server.address() as AddressInfo).port;
  };
  const greetingMs = async (port: number): Promise<number> => {
    const { client, greeting, greetingMs } = await RawSmtpClient.connect(port);
    expect(greeting.code).toBe(220);
    await client.quit();
    return greetingMs;
  };

  // Read from the installed file, not the prototype: test files share a process, so another may
  // already have patched it.
  it('the unpatched library still sleeps 100 ms in SMTPConnection#init', async () => {
    const file = readFileSync(createRequire(import.meta.url).resolve('smtp-server/lib/smtp-connection.js'), 'utf8');
    const source = file.slice(file.indexOf('    init() {'), file.indexOf('\n    }\n', file.indexOf('    init() {')));
    expect(source, 'SMTPConnection#init changed: re-check greeting-delay.ts against it').toContain('setTimeout(() => this.connectionReady(), 100)');
    expect(source).toContain('_setListeners');
    expect(source).toContain('maxClients');
    expect(await greetingMs(await listen({}))).toBeGreaterThanOrEqual(95);
  });

  it('with the patch, greetingDelayMs unset keeps the library default of 100 ms', async () => {
    installGreetingDelayOption();
    expect(SMTPConnection.prototype.init.toString()).not.toContain('setTimeout(() => this.connectionReady(), 100)');
    expect(await greetingMs(await listen({}))).toBeGreaterThanOrEqual(95);
  });

  it('with the patch, greetingDelayMs 0 (our default) greets at once', async () => {
    installGreetingDelayOption();
    const port = await listen({ greetingDelayMs: 0 } as SMTPServerOptions);
    const times = [await greetingMs(port), await greetingMs(port), await greetingMs(port)];
    expect(Math.min(...times)).toBeLessThan(50);
  });

  it('with the patch, maxClients still answers 421 before the greeting', async () => {
    installGreetingDelayOption();
    const port = await listen({ greetingDelayMs: 0, maxClients: 1 } as SMTPServerOptions);
    const first = await RawSmtpClient.connect(port);
    const second = await RawSmtpClient.connect(port);
    expect(second.greeting.code).toBe(421);
    await second.client.whenClosed();
    await first.client.quit();
  });

  it('patches the copy of the library it is given, once (bench:smtp loads a second copy)', () => {
    const init = () => undefined;
    class OtherCopy {}
    Object.assign(OtherCopy.prototype, { init });
    installGreetingDelayOption(OtherCopy);
    const patched = (OtherCopy.prototype as { init: unknown }).init;
    expect(patched).not.toBe(init);
    installGreetingDelayOption(OtherCopy);
    expect((OtherCopy.prototype as { init: unknown }).init).toBe(patched);
  });
});
