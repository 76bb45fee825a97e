import type { Email } from '../../../src/client/index.js';

/** The spam fields of an email, as the API and email.updated carry them (docs/spam.md). */
export type SpamView = Pick<Email, 'spamCheck' | 'spamScore' | 'spamThreshold' | 'isSpam' | 'spamAction' | 'spamRules'>;

/** The spam filter's verdict and the rules that counted; rules that added nothing are left out of the list. */
export function SpamVerdict({ spam }: { spam: SpamView }) {
  if (spam.spamCheck === 'off') return <span class="muted">not checked (no spam filter configured)</span>;
  if (spam.spamCheck === 'unavailable') return <span class="badge neutral">pending: the spam filter did not answer in time; it is asked again</span>;
  const scored = spam.spamRules.filter((rule) => rule.score !== 0);
  const rules = scored.length > 0 ? scored : spam.spamRules;
  return (
    <div class="spam-verdict" data-testid="spam-verdict">
      <span class={`badge ${spam.isSpam ? 'bad' : 'good'}`}>{spam.isSpam ? 'spam' : 'not spam'}</span> score <strong>{spam.spamScore}</strong> of {spam.spamThreshold}
      {spam.spamAction ? <span class="muted"> · filter action: {spam.spamAction}</span> : null}
      <details>
        <summary>{rules.length} rule{rules.length === 1 ? '' : 's'} matched</summary>
        <table class="table spam-rules">
          <tbody>
            {rules.map((rule) => (
              <tr key={rule.name}>
                <th scope="row">
                  <code>{rule.name}</code>
                </th>
                <td class="spam-rule-score">{rule.score > 0 ? `+${rule.score}` : rule.score}</td>
                <td>
                  {rule.description ?? ''}
                  {rule.options.length > 0 ? <span class="muted"> ({rule.options.join(', ')})</span> : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </div>
  );
}
