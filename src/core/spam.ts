import type { AuthResults } from './email.js';
import type { LogStatus } from './vocab.js';

/**
 * Where the spam check of an email stands (docs/spam.md): `off` the check is not configured;
 * `done` the filter gave a verdict; `unavailable` the filter did not answer within the deadline
 * (the mail was accepted anyway and the recheck worker tries again).
 */
export const SPAM_CHECK_STATES = ['off', 'done', 'unavailable'] as const;
export type SpamCheckState = (typeof SPAM_CHECK_STATES)[number];

/** One rule (rspamd: symbol) the message matched. */
export interface SpamRule {
  name: string;
  score: number;
  description: string | null;
  /** What the rule matched on (a domain, a content type, …), as the filter reports it. */
  options: string[];
}

/** The filter's verdict on one message. */
export interface SpamReport {
  score: number;
  /** The score at which the filter rejects the message (rspamd: required_score). */
  threshold: number;
  isSpam: boolean;
  /** What the filter would have the MTA do: rspamd's action ("no action", "add header", "reject", …). */
  action: string;
  rules: SpamRule[];
}

/** The spam fields every email carries; the report's fields are null unless `spamCheck` is `done`. */
export interface SpamFields {
  spamCheck: SpamCheckState;
  spamScore: number | null;
  spamThreshold: number | null;
  isSpam: boolean | null;
  spamAction: string | null;
  spamRules: SpamRule[];
}

export type SpamVerdict = { state: 'off' } | { state: 'unavailable'; reason: string } | { state: 'done'; report: SpamReport };

export function spamFields(verdict: SpamVerdict): SpamFields {
  if (verdict.state !== 'done') return { spamCheck: verdict.state, spamScore: null, spamThreshold: null, isSpam: null, spamAction: null, spamRules: [] };
  const { score, threshold, isSpam, action, rules } = verdict.report;
  return { spamCheck: 'done', spamScore: score, spamThreshold: threshold, isSpam, spamAction: action, spamRules: rules };
}

/** A check result that failed outright (not a temporary or neutral outcome). */
const authFailed = (auth: Pick<AuthResults, 'spfResult' | 'dkimResult' | 'dmarcResult'>) =>
  [auth.spfResult, auth.dkimResult, auth.dmarcResult].includes('fail');

/**
 * The SPAM_CHECK log entry's status: FAILED when SPF, DKIM or DMARC failed or the filter calls the
 * mail spam; PENDING while the filter's verdict is still to come; SUCCESS otherwise.
 */
export function spamCheckLogStatus(auth: Pick<AuthResults, 'spfResult' | 'dkimResult' | 'dmarcResult'>, spam: SpamFields): LogStatus {
  if (authFailed(auth) || spam.isSpam === true) return 'FAILED';
  return spam.spamCheck === 'unavailable' ? 'PENDING' : 'SUCCESS';
}

/** The SPAM_CHECK entry's line: the authentication summary, then the verdict when there is one. */
export function spamCheckLogMessage(authSummary: string, spam: SpamFields): string {
  if (spam.spamCheck === 'off') return authSummary;
  if (spam.spamCheck === 'unavailable') return `${authSummary}; spam check unavailable, will retry`;
  return `${authSummary}; spam score ${spam.spamScore} of ${spam.spamThreshold}${spam.isSpam ? ' (spam)' : ''}`;
}

/** The SPAM_CHECK entry's metadata: the authentication results, plus the verdict when the check is on. */
export function spamCheckLogMetadata(auth: Pick<AuthResults, 'spfResult' | 'dkimResult' | 'dmarcResult' | 'authSummary'>, spam: SpamFields): Record<string, unknown> {
  const { spfResult, dkimResult, dmarcResult, authSummary } = auth;
  const base = { spfResult, dkimResult, dmarcResult, authSummary };
  if (spam.spamCheck === 'off') return base;
  return { ...base, spamCheck: spam.spamCheck, spamScore: spam.spamScore, spamThreshold: spam.spamThreshold, isSpam: spam.isSpam, spamAction: spam.spamAction, spamRules: spam.spamRules };
}
