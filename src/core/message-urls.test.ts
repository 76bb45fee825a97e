import { describe, expect, it } from 'vitest';
import { messageUrls } from './message-urls.js';

describe('messageUrls', () => {
  it('collects the web links and images of the HTML once each, entities decoded', () => {
    const html = `<a href="https://example.com/a?x=1&amp;y=2">a</a><a href='https://example.com/a?x=1&y=2'>again</a>
      <a href="mailto:x@example.com">m</a><a href="#top">t</a><img src="https://cdn.example.com/1.png" srcset="https://cdn.example.com/2.png 2x, https://cdn.example.com/3.png 3x">
      <td background="https://cdn.example.com/bg.gif"></td><!-- <a href="https://hidden.example.com/"> --><a href="https://cdn.example.com/1.png">big</a>`;
    expect(messageUrls(html, 'https://text-only.example.com/')).toEqual([
      { url: 'https://example.com/a?x=1&y=2', kind: 'link' },
      { url: 'https://cdn.example.com/1.png', kind: 'image' },
      { url: 'https://cdn.example.com/2.png', kind: 'image' },
      { url: 'https://cdn.example.com/3.png', kind: 'image' },
      { url: 'https://cdn.example.com/bg.gif', kind: 'image' },
    ]);
  });

  it('reads bare URLs of the text body when there is no HTML', () => {
    expect(messageUrls(null, 'Verify: https://example.com/v?t=1. Or (https://example.com/help), ftp://x.example/')).toEqual([
      { url: 'https://example.com/v?t=1', kind: 'link' },
      { url: 'https://example.com/help', kind: 'link' },
    ]);
  });
});
