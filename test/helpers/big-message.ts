const MB = 1024 * 1024;

/**
 * A 25 MB message (just under the default size limit): one base64 attachment of 18 MB. `n` goes into
 * the subject, the text and the attachment's bytes, so messages of a batch differ from each other.
 */
export function bigMessage(to: string, n: number): Buffer {
  const body = Buffer.alloc(18 * MB, `mailroom ${n} `).toString('base64').replace(/.{76}/g, '$&\r\n');
  const head = [
    'From: sender@example.com',
    `To: ${to}`,
    `Subject: big ${n}`,
    'MIME-Version: 1.0',
    'Content-Type: multipart/mixed; boundary="b"',
    '',
    '--b',
    'Content-Type: text/plain',
    '',
    `see attachment ${n}`,
    '--b',
    'Content-Type: application/octet-stream; name="big.bin"',
    'Content-Transfer-Encoding: base64',
    '',
    '',
  ].join('\r\n');
  return Buffer.from(`${head}${body}\r\n--b--\r\n`);
}
