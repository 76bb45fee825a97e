import { connect } from 'node:tls';
import nodemailer from 'nodemailer';
import { startTestApp } from '/work/main/test/helpers/test-app.js';

const t = await startTestApp({ env: { MAILROOM_LOG_LEVEL: 'silent' } });
const inbox = (await t.http.post('/api/v1/inboxes', { prefix: 'prof' })).json();
const key = (await t.http.post(`/api/v1/inboxes/${inbox.id}/api-keys`, { name: 'k', scopes: ['imap'] })).json().key;
const transport = nodemailer.createTransport({ host: '127.0.0.1', port: t.smtpPort, secure: false, pool: true, maxConnections: 5, tls: { rejectUnauthorized: false } });
const body = 'x'.repeat(76) + '\r\n';
await Promise.all(Array.from({ length: 1000 }, (_, i) => transport.sendMail({ from: 'a@example.com', to: inbox.address, subject: `m${i}`, text: body.repeat(130) })));
transport.close();
const socket = connect({ host: '127.0.0.1', port: t.addresses.imap.port, rejectUnauthorized: false });
let buf = '';
let waiter: ((s: string) => void) | undefined;
let want = '';
socket.on('data', (d: Buffer) => { buf = (buf + d.toString('latin1')).slice(-300); if (waiter && buf.includes(want)) { const w = waiter; waiter = undefined; w(buf); buf = ''; } });
const until = (s: string) => new Promise<string>((r) => { want = s; waiter = r; if (buf.includes(s)) { waiter = undefined; r(buf); buf = ''; } });
await until('* OK');
socket.write(`a LOGIN ${inbox.address} ${key}\r\n`); await until('a OK');
socket.write('b EXAMINE INBOX\r\n'); await until('b OK');
for (let r = 0; r < 8; r++) {
  const started = performance.now();
  socket.write(`c${r} UID FETCH 1:* BODY.PEEK[]\r\n`);
  await until(`c${r} OK`);
  console.log(((1000 / (performance.now() - started)) * 1000).toFixed(0), 'msg/s');
}
socket.end();
await t.stop();
