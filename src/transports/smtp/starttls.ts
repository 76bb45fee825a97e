import type { SMTPServerOptions } from 'smtp-server';
import type { StarttlsMode } from '../../config/local-settings.js';

/**
 * MAILROOM_SMTP_STARTTLS: `on` offers it (with the self-signed certificate when none is configured),
 * `auto` only with a configured certificate: an app with default TLS checks (nodemailer) fails on a
 * self-signed one instead of sending in clear text. `off` never offers it.
 */
export function starttlsOptions(mode: StarttlsMode, certificateConfigured: boolean): Partial<SMTPServerOptions> {
  const offered = mode === 'on' || (mode === 'auto' && certificateConfigured);
  return offered ? {} : { disabledCommands: ['STARTTLS'] };
}
