import { SMTPServer } from 'smtp-server';
import { simpleParser } from 'mailparser';
import type { AddressInfo } from 'node:net';
import { eventually } from './eventually.js';

export interface RelayedMail {
  to: string;
  from: string;
  subject: string;
  text: string;
  /** The AUTH user the sender logged in as. */
  user: string | undefined;
}

export interface SmtpRelay {
  url: string;
  mails: RelayedMail[];
  /** The first relayed mail to `to` whose subject contains `subject` (waits up to 10 s). */
  waitFor(to: string, subject: string): Promise<RelayedMail>;
  close(): Promise<void>;
}

/** A real SMTP server on 127.0.0.1 standing in for an operator's outbound relay; it keeps every mail. */
export async function startSmtpRelay(user = 'relay-user', pass = 'relay-pass'): Promise<SmtpRelay> {
  const mails: RelayedMail[] = [];
  const server = new SMTPServer({
    // A plain-text test relay: real ones offer STARTTLS with a trusted certificate.
    hideSTARTTLS: true,
    allowInsecureAuth: true,
    authMethods: ['PLAIN', 'LOGIN'],
    onAuth(auth, _session, callback) {
      if (auth.username === user && auth.password === pass) callback(null, { user });
      else callback(new Error('Invalid username or password'));
    },
    onData(stream, session, callback) {
      simpleParser(stream).then(
        (parsed) => {
          mails.push({
            to: session.envelope.rcptTo.map((r) => r.address).join(','),
            from: session.envelope.mailFrom === false ? '' : session.envelope.mailFrom.address,
            subject: parsed.subject ?? '',
            text: parsed.text ?? '',
            user: session.user as string | undefined,
          });
          callback();
        },
        (error: Error) => callback(error),
      );
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://${user}:${pass}@127.0.0.1:${port}`,
    mails,
    waitFor: (to, subject) => eventually(async () => mails.find((m) => m.to === to && m.subject.includes(subject)), `a mail "${subject}" to ${to}`),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** The token of an emailed dashboard link (…#token=…). */
export function linkToken(text: string, page: string): string {
  const match = new RegExp(`/${page}#token=([A-Za-z0-9_-]+)`).exec(text);
  if (match === null) throw new Error(`no /${page} link in: ${text}`);
  return match[1] as string;
}
