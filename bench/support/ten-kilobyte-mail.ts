/**
 * A corpus message as it arrives from a real sender: its body inside a 10 KB HTML layout (head CSS,
 * preheader, logo, footer with address and links), the size the speed target is stated for (issue 16).
 * A text-only message goes in as <pre>. The layout adds no code and no action link.
 */
import type { CorpusMessage } from '../../test/helpers/extraction-corpus.js';
const TARGET = 10_240;
const CSS = `body{margin:0;padding:0;background:#f4f5f7;font-family:-apple-system,BlinkMacSystemFont,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;color:#1f2937}
table{border-collapse:collapse}td{padding:0}.wrapper{width:100%;background:#f4f5f7}.container{max-width:600px;margin:0 auto;background:#ffffff;border-radius:8px}
.header{padding:24px 32px;border-bottom:1px solid #e5e7eb}.content{padding:32px;font-size:16px;line-height:24px}.button{display:inline-block;padding:12px 24px;background:#2563eb;color:#ffffff;border-radius:6px;text-decoration:none}
.footer{padding:24px 32px;font-size:12px;line-height:18px;color:#6b7280}.footer a{color:#6b7280}@media only screen and (max-width:620px){.container{width:100%!important;border-radius:0}.content{padding:20px!important}}
`;
const FOOTER_HTML = `<tr><td class="footer"><p>You are receiving this email because an account was registered with this address at Acme Cloud. Acme Cloud, Inc., 548 Market Street, Suite 35410, San Francisco, CA 94104, United States.</p><p><a href="https://acme.example/help">Help centre</a> · <a href="https://acme.example/privacy">Privacy policy</a> · <a href="https://acme.example/terms">Terms of service</a> · <a href="https://status.acme.example/">Status</a></p><p>Follow us: <a href="https://twitter.com/acme"><img src="https://cdn.acme.example/email/twitter.png" width="24" height="24" alt="Twitter"></a> <a href="https://github.com/acme"><img src="https://cdn.acme.example/email/github.png" width="24" height="24" alt="GitHub"></a></p><p>© 2024 Acme Cloud, Inc. All rights reserved.</p></td></tr>`;
/** The message with its HTML body (or its text in <pre>) inside the layout, padded with CSS rules to 10 KB. */
export function inTenKilobyteLayout(message: CorpusMessage): CorpusMessage {
  const head = `<!DOCTYPE html><html lang="${message.lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${message.subject ?? ''}</title><style>${CSS}</style><!--[if mso]><style>table,td{font-family:Arial,sans-serif}</style><![endif]--></head>`;
  const open = `<body><div style="display:none;max-height:0;overflow:hidden">${message.subject ?? ''}${'&nbsp;&zwnj;'.repeat(20)}</div><table role="presentation" class="wrapper" width="100%"><tr><td align="center"><table role="presentation" class="container" width="600"><tr><td class="header"><a href="https://acme.example/"><img src="https://cdn.acme.example/email/logo.png" width="120" height="32" alt="Acme"></a></td></tr><tr><td class="content">`;
  const close = `</td></tr>${FOOTER_HTML}</table></td></tr></table></body></html>`;
  let html = head + open + (message.html ?? `<pre>${message.text ?? ''}</pre>`) + close;
  // Client-specific CSS resets fill the rest, as they do in the head of most transactional mail.
  const rules: string[] = [];
  for (let i = 0; html.length + rules.join('').length < TARGET; i++) rules.push(`.m-${i}{margin:${i % 7}px 0;padding:${i % 5}px;font-size:${12 + (i % 6)}px;line-height:1.${i % 9}}\n`);
  html = html.replace('</style>', `${rules.join('')}</style>`);
  return { ...message, html };
}
