import { withLocalPreset } from '../../src/config/local-settings.js';

/** `mailroom local`'s settings on ephemeral ports: the same preset the command applies. */
export const LOCAL_TEST_ENV = { ...withLocalPreset({ MAILROOM_HTTP_PORT: '0', MAILROOM_SMTP_PORT: '0', MAILROOM_IMAP_PORT: '0' }), MAILROOM_LOG_LEVEL: 'silent' } as Record<string, string>;
