import { createTransport, type Transporter } from 'nodemailer';
import type { OutboundMail, OutboundMessage } from '../../ports/outbound-mail.js';

/** Time to connect, greet and send one message before the attempt counts as failed. */
const RELAY_TIMEOUT_MS = 15_000;

/** Sends through the relay of MAILROOM_SMTP_RELAY_URL (nodemailer: STARTTLS when offered, smtps:// for implicit TLS). */
export class SmtpRelayOutboundMail implements OutboundMail {
  private readonly transport: Transporter;

  constructor(relayUrl: string, private readonly from: string) {
    const url = new URL(relayUrl);
    this.transport = createTransport({
      host: url.hostname.replace(/^\[|\]$/g, ''),
      port: url.port === '' ? (url.protocol === 'smtps:' ? 465 : 587) : Number(url.port),
      secure: url.protocol === 'smtps:',
      auth: url.username === '' ? undefined : { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) },
      connectionTimeout: RELAY_TIMEOUT_MS,
      greetingTimeout: RELAY_TIMEOUT_MS,
      socketTimeout: RELAY_TIMEOUT_MS,
    });
  }

  async send(message: OutboundMessage): Promise<void> {
    await this.transport.sendMail({ from: this.from, to: message.to, subject: message.subject, text: message.text });
  }

  close(): void {
    this.transport.close();
  }
}
