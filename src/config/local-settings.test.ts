import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.js';
import { assertLocalModeIsPrivate, withLocalPreset } from './local-settings.js';

describe('local-mode settings', () => {
  it('leave serve as it was by default', () => {
    const config = loadConfig({});
    expect(config.local).toEqual({ acceptAnyRecipient: false, smtpAuth: 'off', smtpStarttls: 'on', httpTls: true, limits: true, dashboardLogin: 'on' });
    expect(config.publicUrl).toBe('https://mailroom.localhost:8443');
    expect(config.http.port).toBe(8443);
  });

  it('are a preset under whatever the user set', () => {
    const config = loadConfig(withLocalPreset({ MAILROOM_SMTP_PORT: '2525', MAILROOM_DATA_DIR: '/tmp/somewhere' }));
    expect(config.local).toEqual({ acceptAnyRecipient: true, smtpAuth: 'accept-any', smtpStarttls: 'auto', httpTls: false, limits: false, dashboardLogin: 'off-on-loopback' });
    expect(config.smtp).toMatchObject({ host: '127.0.0.1', port: 2525 });
    expect(config.http).toMatchObject({ host: '127.0.0.1', port: 8025 });
    expect(config.dataDir).toBe('/tmp/somewhere');
    expect(config.publicUrl).toBe('http://127.0.0.1:8025');
    expect(loadConfig(withLocalPreset({ MAILROOM_TLS_CERT: '/c.pem', MAILROOM_TLS_KEY: '/k.pem' })).local.httpTls).toBe(true);
  });

  it('reject values nobody meant, naming the variable', () => {
    expect(() => loadConfig({ MAILROOM_SMTP_AUTH: 'yes' })).toThrow('MAILROOM_SMTP_AUTH: expected one of off, accept-any, got "yes"');
    expect(() => loadConfig({ MAILROOM_SMTP_STARTTLS: 'maybe' })).toThrow(ConfigError);
    expect(() => loadConfig({ MAILROOM_HTTP_TLS: '0' })).toThrow('MAILROOM_HTTP_TLS');
    expect(() => loadConfig({ MAILROOM_LIMITS: 'none' })).toThrow('MAILROOM_LIMITS');
    expect(() => loadConfig({ MAILROOM_ACCEPT_ANY_RECIPIENT: 'true' })).toThrow('MAILROOM_ACCEPT_ANY_RECIPIENT');
    expect(() => loadConfig({ MAILROOM_DASHBOARD_LOGIN: 'off-on-loopback', MAILROOM_TRUST_PROXY: '1' })).toThrow('cannot be used with MAILROOM_TRUST_PROXY=1');
  });

  it('refuse local mode without a login on an address other machines reach', () => {
    const open = loadConfig(withLocalPreset({ MAILROOM_HTTP_HOST: '0.0.0.0' }));
    expect(() => assertLocalModeIsPrivate(open.local, open.http.host)).toThrow(/MAILROOM_HTTP_HOST: local mode listens on 0\.0\.0\.0.*MAILROOM_DASHBOARD_LOGIN=on/);
    const withLogin = loadConfig(withLocalPreset({ MAILROOM_HTTP_HOST: '0.0.0.0', MAILROOM_DASHBOARD_LOGIN: 'on' }));
    expect(() => assertLocalModeIsPrivate(withLogin.local, withLogin.http.host)).not.toThrow();
    for (const host of ['127.0.0.1', '::1', 'localhost']) {
      const local = loadConfig(withLocalPreset({ MAILROOM_HTTP_HOST: host }));
      expect(() => assertLocalModeIsPrivate(local.local, local.http.host)).not.toThrow();
    }
  });
});
