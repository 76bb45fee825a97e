import { SMTPServer, type SMTPServerAddress, type SMTPServerDataStream, type SMTPServerSession } from 'smtp-server';
import type { Logger } from '../../logger.js';
import type { Metrics } from '../../ports/metrics.js';
import type { IngestService } from '../../services/ingest.service.js';
import type { Delivery, RecipientService } from '../../services/recipient.service.js';
import type { LimitsSettings } from '../../config/limits-settings.js';
import { ByteBudget } from './byte-budget.js';
import { messageTooLarge, readData } from './data-reader.js';
import { greetingDelayOption } from './greeting-delay.js';
import { admitRecipient, TOO_MANY_RECIPIENTS } from './recipient-limit.js';
import { SmtpSessionLimits } from './session-limits.js';
import { smtpError, smtpReplyFor, type SmtpReply } from './smtp-replies.js';
import { authenticatedTraceHeader, smtpAuthOptions } from './smtp-auth.js';
import { starttlsOptions } from './starttls.js';
import type { SmtpAuthMode, StarttlsMode } from '../../config/local-settings.js';

export interface SmtpServerOptions {
  hostname: string;
  maxMessageBytes: number;
  greetingDelayMs: number;
  tls: { key: Buffer; cert: Buffer };
  recipients: RecipientService;
  ingest: IngestService;
  logger: Logger;
  metrics: Metrics;
  /** On close(), how long transactions in progress may take before the remaining sessions get 421. */
  drainMs: number;
  /** docs/security.md: sessions, lifetime, DATA rate, recipients, bytes in flight, spool threshold. */
  limits: LimitsSettings['smtp'];
  /** Where messages above `limits.spoolThresholdBytes` are written as they arrive (spool.ts). */
  spoolDir: string;
  /** docs/local.md: MAILROOM_SMTP_AUTH and MAILROOM_SMTP_STARTTLS (auto needs a configured certificate). */
  modes: { auth: SmtpAuthMode; starttls: StarttlsMode; certificateConfigured: boolean };
}

type Callback = (error?: Error | null) => void;

/** The AUTH and STARTTLS modes as one set of options (both may disable a command). */
function modeOptions(modes: SmtpServerOptions['modes']): object {
  const auth = smtpAuthOptions(modes.auth);
  const starttls = starttlsOptions(modes.starttls, modes.certificateConfigured);
  return { ...auth, disabledCommands: [...(auth.disabledCommands ?? []), ...(starttls.disabledCommands ?? [])] };
}

/**
 * The SMTP edge: recipients are checked at RCPT TO (refused there, never accepted and dropped),
 * the message is read with a size cap, and the ingest service decides the rest. The reply to DATA
 * is `250 Message accepted <uuid>` only after the email is durably stored.
 */
export function createSmtpServer(options: SmtpServerOptions): SMTPServer {
  const deliveries = new WeakMap<SMTPServerSession, Delivery[]>();
  const sessionLimits = new SmtpSessionLimits(options.limits);
  const inFlight = new ByteBudget(options.limits.maxInFlightBytes);
  const dataLimits = { ...options.limits, maxBytes: options.maxMessageBytes };

  const onRcptTo = (address: SMTPServerAddress, session: SMTPServerSession, callback: Callback) => {
    const list = session.envelope.rcptTo.length === 0 ? [] : (deliveries.get(session) ?? []);
    const admission = admitRecipient(list.map((d) => d.address), address.address, options.limits.maxRecipients);
    if (admission === 'duplicate') return callback();
    if (admission === 'full') {
      options.metrics.messageRefused(String(TOO_MANY_RECIPIENTS.code));
      return callback(smtpError(TOO_MANY_RECIPIENTS));
    }
    const started = performance.now();
    options.recipients.resolve(address.address).then(
      (delivery) => {
        options.metrics.ingestStage('recipient', (performance.now() - started) / 1000);
        list.push(delivery);
        deliveries.set(session, list);
        callback();
      },
      (error: unknown) => {
        const reply = smtpReplyFor(error);
        options.metrics.messageRefused(String(reply.code));
        callback(smtpError(reply));
      },
    );
  };

  // RFC 1870: a sender that declares SIZE= above the limit is refused before it sends the message.
  const onMailFrom = (address: SMTPServerAddress, _session: SMTPServerSession, callback: Callback) => {
    const declared = address.args ? Number((address.args as Record<string, string>).SIZE ?? 0) : 0;
    if (declared <= options.maxMessageBytes) return callback(null);
    options.metrics.messageRefused('552');
    callback(smtpError(messageTooLarge(options.maxMessageBytes)));
  };

  const spoolFailed = (error: unknown) => options.logger.warn({ err: error }, 'smtp spool file failed');
  const afterAcceptFailed = (error: unknown) => {
    try {
      options.logger.warn({ err: error }, 'bookkeeping after a 250 failed; the message is stored');
    } catch {
      // The logger itself is what failed: the message is stored and answered, there is nobody left to tell.
    }
  };

  const onData = (stream: SMTPServerDataStream, session: SMTPServerSession, callback: (error?: Error | null, message?: string) => void) => {
    // Once the 250 is out, a failure in the bookkeeping after it (metrics, the log line) must not
    // send a second reply: the client would read it as the answer to its next command.
    let answered = false;
    const answer = (error: Error | null, message?: string) => {
      answered = true;
      callback(error, message);
    };
    const refuse = (reply: SmtpReply) => {
      options.metrics.messageRefused(String(reply.code));
      answer(smtpError(reply));
    };
    let release = (): void | Promise<void> => undefined;
    const trace = authenticatedTraceHeader(session, options.hostname);
    const spool = { dir: options.spoolDir, thresholdBytes: options.limits.spoolThresholdBytes, head: trace, onError: spoolFailed };
    readData(stream, dataLimits, inFlight, spool)
      .then(async (outcome) => {
        if ('closeSession' in outcome) return sessionLimits.end(session, outcome.closeSession);
        if ('refused' in outcome) return refuse(outcome.refused);
        release = outcome.release;
        if (stream.sizeExceeded) return refuse(messageTooLarge(options.maxMessageBytes));
        if ('raw' in outcome && outcome.raw.length === 0) return refuse({ code: 554, message: '5.6.0 Empty message' });
        // A spooled message's file already starts with the trace header.
        const raw = 'spooled' in outcome ? outcome.spooled : trace === undefined ? outcome.raw : Buffer.concat([trace, outcome.raw]);
        const started = performance.now();
        const { id, timings } = await options.ingest.ingest({
          raw,
          mailFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          deliveries: deliveries.get(session) ?? [],
          clientIp: session.remoteAddress,
          helo: session.hostNameAppearsAs ?? '',
        });
        const seconds = (performance.now() - started) / 1000;
        // The 250 first: the log line is a write to stdout the sender need not wait for.
        answer(null, `Message accepted <${id}>`);
        options.metrics.messageAccepted(seconds);
        options.metrics.ingestStage('analysis', timings.analysis);
        options.metrics.ingestStage('blobs', timings.blobs);
        options.metrics.ingestStage('rows', timings.rows);
        options.logger.info({ emailId: id, session: session.id, size: raw.byteLength, spooled: 'spooled' in outcome, ms: Math.round(seconds * 1000) }, 'message accepted');
      })
      .catch((error: unknown) => {
        if (answered) return afterAcceptFailed(error);
        const reply = smtpReplyFor(error);
        options.logger.warn({ err: error, code: reply.code, session: session.id }, 'message refused');
        refuse(reply);
      })
      .finally(() => Promise.resolve(release()).catch(spoolFailed));
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
    ...modeOptions(options.modes),
    disableReverseLookup: true,
    logger: false,
    closeTimeout: options.drainMs,
    socketTimeout: options.limits.idleTimeoutMs,
    onConnect: (session: SMTPServerSession, callback: Callback) => {
      options.metrics.smtpSessionOpened();
      callback(sessionLimits.onConnect(session));
    },
    onClose: (session: SMTPServerSession) => {
      sessionLimits.onClose(session);
      options.metrics.smtpSessionClosed();
    },
    onMailFrom,
    onRcptTo,
    onData,
    // Read by the patched SMTPConnection#init (greeting-delay.ts).
    ...greetingDelayOption(options.greetingDelayMs),
  });
  sessionLimits.attach(server);
  server.on('error', (error) => options.logger.warn({ err: error }, 'smtp connection error'));
  return server;
}
