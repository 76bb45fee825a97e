import type { Readable } from 'node:stream';
import { SMTPServer, type SMTPServerAddress, type SMTPServerDataStream, type SMTPServerSession } from 'smtp-server';
import type { Logger } from '../../logger.js';
import type { IngestService } from '../../services/ingest.service.js';
import type { Delivery, RecipientService } from '../../services/recipient.service.js';
import { installGreetingDelayOption } from './greeting-delay.js';
import { smtpError, smtpReplyFor } from './smtp-replies.js';

export interface SmtpServerOptions {
  hostname: string;
  maxMessageBytes: number;
  greetingDelayMs: number;
  tls: { key: Buffer; cert: Buffer };
  recipients: RecipientService;
  ingest: IngestService;
  logger: Logger;
}

type Callback = (error?: Error | null) => void;

const messageTooLarge = (limit: number) => smtpError({ code: 552, message: `5.3.4 Message exceeds the size limit of ${limit} bytes` });

/** Reads the DATA stream into memory, keeping at most `limit` bytes (the rest is drained, not kept). */
function readCapped(stream: Readable, limit: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    stream.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
    });
    stream.once('error', reject);
    stream.once('end', () => resolve(size > limit ? undefined : Buffer.concat(chunks, size)));
  });
}

/**
 * The SMTP edge: recipients are checked at RCPT TO (refused there, never accepted and dropped),
 * the message is read with a size cap, and the ingest service decides the rest. The reply to DATA
 * is `250 Message accepted <uuid>` only after the email is durably stored.
 */
export function createSmtpServer(options: SmtpServerOptions): SMTPServer {
  installGreetingDelayOption();
  const deliveries = new WeakMap<SMTPServerSession, Delivery[]>();

  const onRcptTo = (address: SMTPServerAddress, session: SMTPServerSession, callback: Callback) => {
    options.recipients.resolve(address.address).then(
      (delivery) => {
        const list = session.envelope.rcptTo.length === 0 ? [] : (deliveries.get(session) ?? []);
        list.push(delivery);
        deliveries.set(session, list);
        callback();
      },
      (error: unknown) => callback(smtpError(smtpReplyFor(error))),
    );
  };

  // RFC 1870: a sender that declares SIZE= above the limit is refused before it sends the message.
  const onMailFrom = (address: SMTPServerAddress, _session: SMTPServerSession, callback: Callback) => {
    const declared = address.args ? Number((address.args as Record<string, string>).SIZE ?? 0) : 0;
    callback(declared > options.maxMessageBytes ? messageTooLarge(options.maxMessageBytes) : null);
  };

  const onData = (stream: SMTPServerDataStream, session: SMTPServerSession, callback: (error?: Error | null, message?: string) => void) => {
    readCapped(stream, options.maxMessageBytes)
      .then(async (raw) => {
        if (raw === undefined || stream.sizeExceeded) return callback(messageTooLarge(options.maxMessageBytes));
        if (raw.length === 0) return callback(smtpError({ code: 554, message: '5.6.0 Empty message' }));
        const { id } = await options.ingest.ingest({
          raw,
          mailFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          deliveries: deliveries.get(session) ?? [],
          clientIp: session.remoteAddress,
          helo: session.hostNameAppearsAs ?? '',
        });
        callback(null, `Message accepted <${id}>`);
      })
      .catch((error: unknown) => {
        const reply = smtpReplyFor(error);
        options.logger.warn({ err: error, code: reply.code, session: session.id }, 'message refused');
        callback(smtpError(reply));
      });
  };

  const server = new SMTPServer({
    name: options.hostname,
    // smtp-server greets with `220 <name> ESMTP <banner>`.
    banner: 'Mailroom',
    key: options.tls.key,
    cert: options.tls.cert,
    size: options.maxMessageBytes,
    // The library's own SIZE= refusal has no enhanced status code (it hides them all); onMailFrom
    // refuses with 552 5.3.4 instead. EHLO then advertises SIZE without the number (RFC 1870 allows it).
    hideSize: true,
    authOptional: true,
    disabledCommands: ['AUTH'],
    disableReverseLookup: true,
    logger: false,
    onMailFrom,
    onRcptTo,
    onData,
    // Passed through to the patched SMTPConnection#init (greeting-delay.ts).
    ...({ greetingDelayMs: options.greetingDelayMs } as object),
  });
  server.on('error', (error) => options.logger.warn({ err: error }, 'smtp connection error'));
  return server;
}
