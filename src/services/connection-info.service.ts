import type { SmtpAuthMode, StarttlsMode } from '../config/local-settings.js';

/** A listener's address: the configured one until it listens, then the bound one (port 0 picks a free port). */
export interface ListenerAddress {
  host: string;
  port: number;
}

/** What the running configuration says about reaching this server (read once at startup). */
export interface ConnectionSettings {
  mailDomain: string;
  mxHost: string;
  publicUrl: string;
  httpTls: boolean;
  /** MAILROOM_TLS_CERT is set; otherwise TLS uses the self-signed certificate of the data dir. */
  certificateConfigured: boolean;
  smtpAuth: SmtpAuthMode;
  smtpStarttls: StarttlsMode;
  acceptAnyRecipient: boolean;
  maxMessageBytes: number;
  listeners: () => { smtp: ListenerAddress; imap: ListenerAddress };
}

export type SmtpSecurity = 'none' | 'starttls-optional';
export type SmtpAuth = 'not-offered' | 'any-credentials';

/** docs/dashboard.md "Connect": the settings an app, a mail client or a test needs to talk to this server. */
export interface ConnectionInfo {
  mailDomain: string;
  api: { baseUrl: string; keyHeader: 'x-api-key'; selfSignedCertificate: boolean };
  smtp: {
    host: string;
    port: number;
    security: SmtpSecurity;
    selfSignedCertificate: boolean;
    auth: SmtpAuth;
    acceptsAnyRecipient: boolean;
    maxMessageBytes: number;
  };
  imap: { host: string; port: number; security: 'implicit-tls'; selfSignedCertificate: boolean };
}

const WILDCARDS = new Set(['', '0.0.0.0', '::', '[::]']);

/**
 * The host a client uses: a listener bound to one address is reached there (local mode's 127.0.0.1);
 * one bound to every address is reached by the server's name, the MX host its certificate and greeting carry.
 */
function clientHost(listenHost: string, mxHost: string): string {
  return WILDCARDS.has(listenHost) ? mxHost : listenHost;
}

export class ConnectionInfoService {
  constructor(private readonly settings: ConnectionSettings) {}

  describe(): ConnectionInfo {
    const s = this.settings;
    const selfSigned = !s.certificateConfigured;
    const { smtp, imap } = s.listeners();
    const starttls = s.smtpStarttls === 'on' || (s.smtpStarttls === 'auto' && s.certificateConfigured);
    return {
      mailDomain: s.mailDomain,
      api: { baseUrl: `${s.publicUrl.replace(/\/+$/, '')}/api/v1`, keyHeader: 'x-api-key', selfSignedCertificate: s.httpTls && selfSigned },
      smtp: {
        host: clientHost(smtp.host, s.mxHost),
        port: smtp.port,
        security: starttls ? 'starttls-optional' : 'none',
        selfSignedCertificate: starttls && selfSigned,
        auth: s.smtpAuth === 'accept-any' ? 'any-credentials' : 'not-offered',
        acceptsAnyRecipient: s.acceptAnyRecipient,
        maxMessageBytes: s.maxMessageBytes,
      },
      imap: { host: clientHost(imap.host, s.mxHost), port: imap.port, security: 'implicit-tls', selfSignedCertificate: selfSigned },
    };
  }
}
