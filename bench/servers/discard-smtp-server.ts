/**
 * The library's ceiling: smtp-server 3.21.6 reading each message to the end and discarding it.
 * As shipped it waits 100 ms before every greeting; with `--greeting-delay-ms 0` it takes Mailroom's
 * own greeting option (src/transports/smtp/greeting-delay.ts) and does not, which is the ceiling for a
 * new connection per message. Prints its port, and on SIGTERM how many messages it accepted.
 */
import { parseArgs } from 'node:util';
import { SMTPServer } from 'smtp-server';
import { PLAIN_SMTP_OPTIONS, plainSmtpOptionsGreetingAfter } from './plain-smtp-options.js';

const { values } = parseArgs({ options: { 'greeting-delay-ms': { type: 'string' } } });
const greetingDelayMs = values['greeting-delay-ms'] === undefined ? undefined : Number(values['greeting-delay-ms']);
if (greetingDelayMs !== undefined && !(Number.isInteger(greetingDelayMs) && greetingDelayMs >= 0)) {
  throw new Error(`--greeting-delay-ms must be a whole number of milliseconds, not ${values['greeting-delay-ms']}`);
}
let accepted = 0;
const server = new SMTPServer({
  ...(greetingDelayMs === undefined ? PLAIN_SMTP_OPTIONS : plainSmtpOptionsGreetingAfter(greetingDelayMs)),
  onData(stream, _session, callback) {
    stream.on('data', () => undefined);
    stream.once('end', () => {
      accepted++;
      callback(null, 'Message discarded');
    });
  },
});
server.listen(0, '127.0.0.1', () => {
  const address = server.server.address();
  console.log(`listening on ${typeof address === 'object' && address ? address.port : 0}`);
});
process.once('SIGTERM', () => {
  console.log(`accepted ${accepted}`);
  server.close(() => process.exit(0));
});
