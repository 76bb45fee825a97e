import { describe, expect, it } from 'vitest';
import { UnavailableError } from '../../core/errors.js';
import { CaniemailHtmlChecker } from './caniemail.html-checker.js';

describe('CaniemailHtmlChecker', () => {
  it('flags what Outlook on Windows lacks, with the feature category and caniemail page', async () => {
    const report = await new CaniemailHtmlChecker().check('<table><tr><td style="border-radius:4px">Hi</td></tr></table>');
    const windows = report.families.find((f) => f.family === 'outlook')?.clients.find((c) => c.client === 'outlook.windows');
    expect(windows?.unsupported.map((f) => f.feature)).toContain('border-radius');
    expect(report.features.find((f) => f.title === 'border-radius')).toMatchObject({ category: 'css', url: 'https://www.caniemail.com/features/css-border-radius/' });
    expect(report.dataset.name).toBe('caniemail');
  });

  it('a data set that cannot be loaded is UnavailableError HTML_CHECK_UNAVAILABLE (HTTP 503), and is retried on the next call', async () => {
    const checker = new CaniemailHtmlChecker('caniemail-not-installed');
    for (let attempt = 0; attempt < 2; attempt++) {
      const failure = await checker.check('<p>x</p>').catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(UnavailableError);
      expect(failure).toMatchObject({ code: 'HTML_CHECK_UNAVAILABLE', message: 'The email-client support data set (caniemail) could not be loaded' });
      expect(((failure as Error).cause as Error).message).toContain('caniemail-not-installed');
    }
  });
});
