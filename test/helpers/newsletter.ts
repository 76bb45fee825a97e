/**
 * A generated newsletter of about `bytes` characters, written the way email builders write them:
 * nested presentation tables, inline styles on every cell, a unique link and image per article,
 * a <style> block with media queries and hover rules, and Outlook conditional comments.
 */
export function newsletterHtml(bytes = 100 * 1024): string {
  const head = `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="color-scheme" content="light dark"><title>Weekly news</title>
<style>@media (max-width:600px){.column{width:100%!important}} .button:hover{background-color:#0b57d0} body{margin:0}
@media (prefers-color-scheme: dark){.card{background:#111!important;color:#eee!important}}</style></head>
<body style="margin:0;padding:0;background-color:#f4f4f4"><!--[if mso]><table role="presentation" width="600"><tr><td><![endif]-->
<table role="presentation" width="600" cellpadding="0" cellspacing="0" align="center" style="max-width:600px;width:100%;border-collapse:collapse">`;
  const palette = ['#ffffff', '#f8f9fa', '#e8f0fe', '#fef7e0'];
  const parts = [head];
  let size = head.length;
  for (let i = 1; size < bytes - 200; i++) {
    const article = `<tr><td class="card column" valign="top" style="padding:${12 + (i % 4) * 4}px;background-color:${palette[i % palette.length]};border-radius:6px;font-family:Arial,Helvetica,sans-serif">
<a href="https://news.example.com/articles/${i}?utm_source=newsletter&amp;utm_medium=email&amp;utm_campaign=w${i % 7}" style="color:#1a73e8;text-decoration:none">
<img src="https://cdn.example.com/images/article-${i}.${i % 3 === 0 ? 'jpg' : 'png'}" width="${120 + (i % 5) * 10}" height="80" alt="Article ${i}" style="display:block;border:0;outline:none"></a>
<h2 style="margin:0 0 8px;font-size:${18 + (i % 3)}px;line-height:1.3;color:#202124">Headline number ${i}</h2>
<p style="margin:0 0 12px;font-size:14px;line-height:1.5;color:#3c4043">Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore ${i}.</p>
<a class="button" href="https://news.example.com/read/${i}" style="display:inline-block;padding:10px 18px;background-color:#1a73e8;color:#ffffff;border-radius:4px;text-decoration:none">Read more</a>
</td></tr>\n`;
    parts.push(article);
    size += article.length;
  }
  parts.push('</table><!--[if mso]></td></tr></table><![endif]--></body></html>');
  return parts.join('');
}
