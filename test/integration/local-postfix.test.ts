import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DIALECTS } from '../helpers/databases.js';
import { eventually } from '../helpers/eventually.js';
import { freePort } from '../helpers/mailroom-process.js';
import { postfixAvailable, startPostfixRelay, type PostfixInstance } from '../helpers/postfix.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { LOCAL_TEST_ENV } from '../helpers/local-mode.js';

describe.skipIf(!postfixAvailable).each(TEST_DIALECTS)('Postfix relaying into local mode (%s)', (dialect) => {
  let t: TestApp;
  let postfix: PostfixInstance;
  beforeAll(async () => {
    t = await startTestApp({ dialect, env: LOCAL_TEST_ENV });
    postfix = await startPostfixRelay(t.smtpPort, await freePort());
  }, 60_000);
  afterAll(async () => {
    await postfix?.stop();
    await t?.stop();
  });

  it('delivers a message for someone@gmail.com that then shows in the API and the dashboard', async () => {
    const base = `http://127.0.0.1:${t.addresses.http.port}/api/v1`;
    const transport = nodemailer.createTransport({ host: '127.0.0.1', port: postfix.port });
    await eventually(() => transport.sendMail({ from: 'app@example.com', to: 'someone@gmail.com', subject: `Relayed by Postfix (${dialect})`, text: 'hi' }).catch(() => undefined), 'Postfix accepting mail', 30_000, 500);
    transport.close();

    const key = t.app.ctx.localAccount?.apiKey as string;
    const found = await eventually(
      async () => {
        const page = (await (await fetch(`${base}/emails?subject=Relayed`, { headers: { 'x-api-key': key } })).json()) as { data: Array<{ to: string[] }> };
        return page.data[0];
      },
      'the relayed message in the API',
      30_000,
      200,
    ).catch(async (error: unknown) => {
      throw new Error(`${String(error)}\nPostfix log:\n${await postfix.log()}`);
    });
    expect(found.to).toEqual(['someone@gmail.com']);

    // The dashboard's own view: a login-free session from this machine, then its list call.
    const session = (await (await fetch(`${base}/auth/refresh`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).json()) as { accessToken: string };
    const dashboardList = (await (await fetch(`${base}/emails?subject=Relayed`, { headers: { authorization: `Bearer ${session.accessToken}` } })).json()) as { data: unknown[] };
    expect(dashboardList.data).toHaveLength(1);
  }, 90_000);
});
