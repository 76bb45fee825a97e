import nodemailer from 'nodemailer';
import type Mail from 'nodemailer/lib/mailer/index.js';

export interface SendResult {
  response: string;
  /** The UUID from `250 Message accepted <uuid>`. */
  id: string;
}

/** Sends through a real SMTP client (nodemailer) over STARTTLS, one connection per message. */
export async function sendMail(port: number, message: Mail.Options): Promise<SendResult> {
  const transport = nodemailer.createTransport({ host: '127.0.0.1', port, secure: false, tls: { rejectUnauthorized: false } });
  try {
    const info = await transport.sendMail(message);
    const match = /^250 Message accepted <([0-9a-f-]{36})>$/.exec(info.response);
    if (match === null) throw new Error(`unexpected SMTP reply: ${info.response}`);
    return { response: info.response, id: match[1] as string };
  } finally {
    transport.close();
  }
}

/** Sends raw RFC 5322 bytes as they are. */
export function sendRaw(port: number, envelope: { from: string; to: string[] }, raw: string | Buffer): Promise<SendResult> {
  return sendMail(port, { envelope, raw });
}
