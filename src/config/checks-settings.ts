import { flag } from './config.js';
import type { RawEnv } from './env.js';

/** docs/checks.md: the on-demand message checks (HTML compatibility, link check). */
export interface MessageCheckSettings {
  /**
   * The link check may reach loopback, private and link-local addresses. Its own setting, not the
   * webhooks' one: a webhook URL is chosen by the account, a link by whoever sent the mail.
   */
  linkCheckAllowPrivate: boolean;
}

export function messageCheckSettings(env: RawEnv): MessageCheckSettings {
  return { linkCheckAllowPrivate: flag(env, 'MAILROOM_LINK_CHECK_ALLOW_PRIVATE') };
}
