/**
 * Pins extraction's outputs for a speed change (issue 16): every result of `extractArtefacts`,
 * `readHtml` and `htmlToText` over both corpora and variants of them (10 KB layout, text or HTML only,
 * upper case, CRLF, a dotted capital I that changes the length when lower-cased), one JSON line each.
 * Run it before and after a change and compare the files: a speed change must leave them byte-identical.
 *
 *   npx tsx bench/extraction-pin.ts OUT.jsonl [EXTRA_INPUTS.jsonl]
 *
 * EXTRA_INPUTS holds more inputs, one JSON object a line: `{text, html, subject, maxChars}` for
 * extractArtefacts or `{htmlToText}`; e.g. what the unit tests pass, captured by a temporary hook.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { DEFAULT_EXTRACTION_LIMITS, extractArtefacts } from '../src/core/extract.js';
import { htmlToText, readHtml } from '../src/core/html-text.js';
import { loadCorpus, type CorpusMessage } from '../test/helpers/extraction-corpus.js';
import { inTenKilobyteLayout } from './support/ten-kilobyte-mail.js';

interface Input {
  text: string;
  html: string | null;
  subject: string;
  maxChars?: number;
}

const asInput = (message: CorpusMessage): Input => ({ text: message.text ?? '', html: message.html ?? null, subject: message.subject ?? '' });
const mapped = (input: Input, change: (text: string) => string): Input => ({
  text: change(input.text),
  html: input.html === null ? null : change(input.html),
  subject: change(input.subject),
});

function variants(message: CorpusMessage): Input[] {
  const input = asInput(message);
  return [
    input,
    asInput(inTenKilobyteLayout(message)),
    { ...input, html: null },
    { ...input, text: '' },
    mapped(input, (text) => text.toUpperCase()),
    mapped(input, (text) => text.replace(/\n/g, '\r\n')),
    mapped(input, (text) => text.replace(/i/g, 'İ')),
  ];
}

function pinned(input: Input): string[] {
  const limits = { ...DEFAULT_EXTRACTION_LIMITS, maxChars: input.maxChars ?? DEFAULT_EXTRACTION_LIMITS.maxChars };
  const lines = [JSON.stringify(extractArtefacts(input.text, input.html, input.subject, limits))];
  if (input.html !== null) lines.push(JSON.stringify(readHtml(input.html, { sourceBreaks: false })), JSON.stringify(htmlToText(input.html)));
  return lines;
}

const [out, extra] = process.argv.slice(2);
if (out === undefined) throw new Error('usage: extraction-pin.ts OUT.jsonl [EXTRA_INPUTS.jsonl]');
const messages = [...loadCorpus('hand-written'), ...loadCorpus('public')];
const lines = messages.flatMap(variants).flatMap(pinned);
const extraInputs = extra === undefined ? [] : readFileSync(extra, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as Input | { htmlToText: string });
for (const input of extraInputs) lines.push(...('htmlToText' in input ? [JSON.stringify(htmlToText(input.htmlToText))] : pinned(input)));
const dump = `${lines.join('\n')}\n`;
writeFileSync(out, dump);
console.log(`${lines.length} results from ${messages.length} messages and ${extraInputs.length} extra inputs, sha256 ${createHash('sha256').update(dump).digest('hex')}`);
