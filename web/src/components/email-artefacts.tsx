import { useMemo } from 'preact/hooks';
import { extractArtefacts } from '../../../src/core/extract.js';
import { linkDetailsOf } from '../link-details.js';
import { CopyButton } from './ui.js';

/** The code to type and the links to open, found in the email the way ingest finds them for inboxes. */
export function EmailArtefacts({ text, html }: { text: string | null; html: string | null }) {
  const extracted = useMemo(() => extractArtefacts(text ?? '', html), [text, html]);
  const code = extracted.otp ?? extracted.verificationCode;
  const links = linkDetailsOf(extracted).filter((link) => /^https?:/i.test(link.url));
  if (code === null && links.length === 0) return null;
  return (
    <section class="artefacts" aria-label="Code and links">
      {code !== null ? (
        <p class="artefact-code">
          <span class="muted">Code</span> <code data-testid="email-code">{code}</code> <CopyButton value={code} label="Copy code" />
        </p>
      ) : null}
      {links.length > 0 ? (
        <ul class="artefact-links">
          {links.map((link) => (
            <li key={link.url}>
              <span class={`badge kind-${link.kind}`}>{link.kind}</span>{' '}
              <a href={link.url} target="_blank" rel="noopener noreferrer" title={link.url}>
                {link.text || link.url}
              </a>
            </li>
          ))}
        </ul>
      ) : null}
    </section>
  );
}
