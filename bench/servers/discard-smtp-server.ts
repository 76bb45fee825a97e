/**
 * The library's ceiling: smtp-server 3.21.6 exactly as shipped (its 100 ms greeting pause included),
 * reading each message to the end and discarding it. Prints its port, and on SIGTERM how many
 * messages it accepted.
 */
import { SMTPServer } from 'smtp-server';
import { PLAIN_SMTP_OPTIONS } from './plain-smtp-options.js';

let accepted = 0;
const server = new SMTPServer({
  ...PLAIN_SMTP_OPTIONS,
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
