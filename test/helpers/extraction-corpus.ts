import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import yaml from 'js-yaml';
import { extractArtefacts, type Extracted, type LinkKind } from '../../src/core/extract.js';

/** One message of an extraction corpus (test/fixtures/extraction: hand-written; public/: open-source templates). */
export interface CorpusMessage {
  name: string;
  file: string;
  lang: string;
  /** Public corpus: where the template comes from. */
  source?: { repo: string; path: string; commit: string; keys?: string[] };
  subject?: string;
  text?: string;
  html?: string;
  expect: {
    codes?: string[];
    otp?: string;
    verificationCode?: string;
    links?: Array<{ url: string; kind: string }>;
  };
}

const FIXTURES = join(import.meta.dirname, '../fixtures/extraction');

export function loadCorpus(which: 'hand-written' | 'public'): CorpusMessage[] {
  const dir = which === 'public' ? join(FIXTURES, 'public') : FIXTURES;
  return readdirSync(dir)
    .filter((file) => file.endsWith('.yaml'))
    .flatMap((file) =>
      (yaml.load(readFileSync(join(dir, file), 'utf8')) as Array<Omit<CorpusMessage, 'file'>>).map((message) => ({
        ...message,
        file,
        lang: message.lang ?? (file === 'traps.yaml' ? 'en' : file.replace('.yaml', '')),
      })),
    );
}

/** Links a tester opens to act on an account: every kind but "other" and "unsubscribe". */
const ACTION_KINDS: ReadonlySet<string> = new Set<LinkKind>(['verification', 'magic-login', 'password-reset', 'email-change', 'account-unlock', 'set-password', 'invitation', 'account-update']);

export type CodeClass = 'digits' | 'letters' | 'mixed';
export const codeClass = (code: string): CodeClass => (/^[\d\s-]+$/.test(code) ? 'digits' : /\d/.test(code) ? 'mixed' : 'letters');

/** True, false positives and false negatives of one measured class. */
export class Tally {
  tp = 0;
  fp = 0;
  fn = 0;
  get precision(): number {
    return this.tp + this.fp === 0 ? 1 : this.tp / (this.tp + this.fp);
  }
  get recall(): number {
    return this.tp + this.fn === 0 ? 1 : this.tp / (this.tp + this.fn);
  }
}

export interface Evaluation {
  messages: number;
  otp: Tally;
  links: Tally;
  byClass: Map<string, Tally>;
  byLanguage: Map<string, { otp: Tally; links: Tally }>;
  /** Messages with no code that still produced one. */
  codesFromCodeless: number;
  misses: string[];
  totalMs: number;
  totalBytes: number;
}

function tallyOf<K>(map: Map<K, Tally>, key: K): Tally {
  let tally = map.get(key);
  if (tally === undefined) map.set(key, (tally = new Tally()));
  return tally;
}

/** The otp a message expects: `otp`, or for entries written before otp took letters, `verificationCode`. */
const expectedOtp = (message: CorpusMessage) => message.expect.otp ?? message.expect.verificationCode ?? null;

function scoreOtp(message: CorpusMessage, found: Extracted, evaluation: Evaluation, language: { otp: Tally }): void {
  const expected = expectedOtp(message);
  const tallies = (code: string) => [evaluation.otp, language.otp, tallyOf(evaluation.byClass, `otp ${codeClass(code)}`)];
  if (expected !== null && found.otp === expected) return tallies(expected).forEach((t) => t.tp++);
  if (expected !== null) {
    tallies(expected).forEach((t) => t.fn++);
    evaluation.misses.push(`${message.file} ${message.name}: otp expected ${expected}, got ${found.otp}`);
  }
  if (found.otp !== null) {
    tallies(found.otp).forEach((t) => t.fp++);
    if (expected === null) evaluation.misses.push(`${message.file} ${message.name}: unexpected otp ${found.otp}`);
  }
}

function scoreLinks(message: CorpusMessage, found: Extracted, evaluation: Evaluation, language: { links: Tally }): void {
  const expected = new Map((message.expect.links ?? []).filter((l) => ACTION_KINDS.has(l.kind)).map((l) => [l.url, l.kind]));
  for (const link of found.links.filter((l) => ACTION_KINDS.has(l.kind))) {
    const tallies = [evaluation.links, language.links, tallyOf(evaluation.byClass, `link ${link.kind}`)];
    if (expected.get(link.url) === link.kind) {
      tallies.forEach((t) => t.tp++);
      expected.delete(link.url);
    } else {
      tallies.forEach((t) => t.fp++);
      evaluation.misses.push(`${message.file} ${message.name}: unexpected ${link.kind} link ${link.url}`);
    }
  }
  for (const [url, kind] of expected) {
    [evaluation.links, language.links, tallyOf(evaluation.byClass, `link ${kind}`)].forEach((t) => t.fn++);
    const got = found.links.find((l) => l.url === url)?.kind ?? 'nothing';
    evaluation.misses.push(`${message.file} ${message.name}: expected ${kind} link ${url}, got ${got}`);
  }
}

/** Runs extraction over every message and scores otp and action links against the expectations. */
export function evaluate(corpus: CorpusMessage[]): Evaluation {
  const evaluation: Evaluation = {
    messages: corpus.length,
    otp: new Tally(),
    links: new Tally(),
    byClass: new Map(),
    byLanguage: new Map(),
    codesFromCodeless: 0,
    misses: [],
    totalMs: 0,
    totalBytes: 0,
  };
  for (const message of corpus) {
    const started = performance.now();
    const found = extractArtefacts(message.text ?? '', message.html ?? null, message.subject ?? '');
    evaluation.totalMs += performance.now() - started;
    evaluation.totalBytes += (message.text ?? '').length + (message.html ?? '').length + (message.subject ?? '').length;
    let language = evaluation.byLanguage.get(message.lang);
    if (language === undefined) evaluation.byLanguage.set(message.lang, (language = { otp: new Tally(), links: new Tally() }));
    scoreOtp(message, found, evaluation, language);
    scoreLinks(message, found, evaluation, language);
    const codeless = expectedOtp(message) === null && (message.expect.codes ?? []).length === 0;
    if (codeless && found.codes.length > 0) {
      evaluation.codesFromCodeless++;
      evaluation.misses.push(`${message.file} ${message.name}: codes ${found.codes.join(', ')} from a message with none`);
    }
  }
  return evaluation;
}
