import type { ExtractedLink, LinkKind } from './extract.js';
import {
  ACCOUNT_UNLOCK_WORDS,
  ACCOUNT_UPDATE_WORDS,
  EMAIL_CHANGE_WORDS,
  INVITATION_WORDS,
  MAGIC_LOGIN_STRONG_WORDS,
  MAGIC_LOGIN_WORDS,
  PASSWORD_RESET_WORDS,
  SET_PASSWORD_WORDS,
  UNSUBSCRIBE_WORDS,
  VERIFICATION_WORDS,
} from './extract-words.js';
import { collapseWhitespace, type HtmlReading } from './html-text.js';

const BARE_URL = /https?:\/\/[^\s<>"'`{}|\\^[\]]+/gi;
const TRAILING_PUNCTUATION = /[.,;:!?'")\]}>»]+$/;
/** Text of an anchor that says nothing about where it goes. */
const GENERIC_TEXT = /^(?:click here|here|this link|link|button|hier|ici|aqui|aquí|clique aqui|haga clic aquí|cliquez ici|hier klicken)?$/i;
const CONTEXT_CHARS = 160;
const MAX_TEXT = 200;

/** The query's parameters; most links have no query, and URL builds its searchParams object on first use. */
const parametersOf = (url: URL): Iterable<[string, string]> => (url.search === '' ? [] : url.searchParams);

/** A link needs a one-off token to be a verification, login or reset link; a bare /login page is "other". */
function carriesToken(url: URL): boolean {
  for (const [key, value] of parametersOf(url)) {
    if (/^(?:token|code|key|otp|t|sig|signature|hash|auth|jwt|k|c|id|uid|ticket|nonce|oobcode|confirmation_token|verification_token)$/i.test(key) && value.length >= 6) {
      return true;
    }
    if (/[A-Za-z0-9_-]{16,}/.test(value)) return true;
  }
  return url.pathname.split('/').some((segment) => segment.length >= 16 && /\d/.test(segment) && /[A-Za-z]/.test(segment));
}

/** The words of a URL worth reading: its path, parameter names and short word-like values. */
function urlWords(url: URL): string {
  // Keycloak routes every action through /login-actions/: the path says nothing about this link's action.
  const words = [decodeURIComponentSafe(url.pathname).replace(/login-actions|action-token/g, ' ').replace(/[/_.-]+/g, ' ')];
  for (const [key, value] of parametersOf(url)) {
    words.push(key.replace(/[_-]+/g, ' '));
    if (/^[a-z_-]{3,20}$/i.test(value)) words.push(value.replace(/[_-]+/g, ' '));
  }
  return words.join(' ').toLowerCase();
}

function decodeURIComponentSafe(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** What each kind's words say, in the order they are asked: the more specific action first. */
const KIND_WORDS: ReadonlyArray<readonly [LinkKind, RegExp]> = [
  ['unsubscribe', UNSUBSCRIBE_WORDS],
  ['email-change', EMAIL_CHANGE_WORDS],
  ['account-unlock', ACCOUNT_UNLOCK_WORDS],
  ['invitation', INVITATION_WORDS],
  ['account-update', ACCOUNT_UPDATE_WORDS],
  ['set-password', SET_PASSWORD_WORDS],
  ['password-reset', PASSWORD_RESET_WORDS],
  ['magic-login', MAGIC_LOGIN_STRONG_WORDS],
  ['verification', VERIFICATION_WORDS],
  ['magic-login', MAGIC_LOGIN_WORDS],
];

/**
 * Generic readings of a link that the sentence around makes specific: a required-actions link may reset
 * credentials among other things (the mail asks to update the account), a /password-reset/ link "to choose a
 * password for your new account" sets a first one, and a "verify email address" button under "confirm the
 * new address to change your email" confirms an email change.
 */
const REFINED_BY_CONTEXT: ReadonlyMap<LinkKind, ReadonlySet<LinkKind>> = new Map<LinkKind, ReadonlySet<LinkKind>>([
  ['password-reset', new Set<LinkKind>(['account-update', 'set-password'])],
  ['verification', new Set<LinkKind>(['email-change'])],
]);

function kindOfWords(words: string): LinkKind | undefined {
  return KIND_WORDS.find(([, pattern]) => pattern.test(words))?.[0];
}

/** The sentence around a link can tell a token link's purpose, never that it unsubscribes (footers list several links). */
function contextKind(context: () => string): LinkKind | undefined {
  const kind = kindOfWords(context().toLowerCase());
  return kind === 'unsubscribe' ? undefined : kind;
}

/** The anchor text decides; an opaque anchor ("click here") falls back to the URL, then to the sentence around it. */
export function classifyLink(rawUrl: string, text: string, context: () => string): LinkKind {
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    return 'other';
  }
  const ownText = text.toLowerCase();
  const opaque = GENERIC_TEXT.test(ownText.trim()) || ownText.startsWith('http');
  // Without a token only an unsubscribe link is named, and only by its text or URL: the dearer
  // reading of every kind and of the sentence around is for the few links that carry one.
  if (!carriesToken(url)) return (!opaque && UNSUBSCRIBE_WORDS.test(ownText)) || UNSUBSCRIBE_WORDS.test(urlWords(url)) ? 'unsubscribe' : 'other';
  const direct = (opaque ? undefined : kindOfWords(ownText)) ?? kindOfWords(urlWords(url));
  const refinements = direct === undefined ? undefined : REFINED_BY_CONTEXT.get(direct);
  if (refinements !== undefined) {
    const around = contextKind(context);
    return around !== undefined && refinements.has(around) ? around : (direct ?? 'other');
  }
  return direct ?? contextKind(context) ?? 'other';
}

const squash = (text: string) => collapseWhitespace(text).trim().slice(0, MAX_TEXT);

function isWebUrl(url: string): boolean {
  return /^https?:\/\/[^\s/]+/i.test(url);
}

/** Visible text just around an anchor, for "please <a>click here</a> to verify". */
function contextAround(text: string, start: number, end: number): string {
  const before = collapseWhitespace(text.slice(Math.max(0, start - CONTEXT_CHARS * 3), start)).trim().slice(-CONTEXT_CHARS);
  return `${before} ${collapseWhitespace(text.slice(end, end + CONTEXT_CHARS * 3)).trim().slice(0, CONTEXT_CHARS)}`;
}

/** Anchors of the HTML body with their visible text (or image alt); CSS, scripts, pixels and comments are not links. */
export function htmlLinks(reading: HtmlReading, checkpoint: () => void): ExtractedLink[] {
  const links: ExtractedLink[] = [];
  for (const anchor of reading.anchors) {
    checkpoint();
    if (!isWebUrl(anchor.href)) continue;
    const text = squash(anchor.text) || squash(anchor.alt);
    links.push({ url: anchor.href, text, kind: classifyLink(anchor.href, text, () => contextAround(reading.text, anchor.start, anchor.end)) });
  }
  return links;
}

const LINK_LABEL_END = /[:\-–—>]+\s*$/;

/** The nearer of the two lines above the line starting at `lineStart` that is not blank ('' when both are). */
function lineAbove(text: string, lineStart: number): string {
  let end = lineStart - 1;
  for (let looked = 0; looked < 2 && end >= 0; looked++) {
    const start = end === 0 ? 0 : text.lastIndexOf('\n', end - 1) + 1;
    const line = text.slice(start, end);
    if (line.trim().length > 0) return line;
    end = start - 1;
  }
  return '';
}

/**
 * Bare URLs of the text body; their text is the rest of their line, or the line above when they stand alone.
 * Only MAX_TEXT characters either side of a URL are read, so a line of many URLs stays linear. A URL never
 * spans a line break (BARE_URL stops at whitespace), so the text is searched whole and only the lines
 * around a URL are looked at: most text bodies have none.
 */
export function textLinks(text: string, checkpoint: () => void): ExtractedLink[] {
  const links: ExtractedLink[] = [];
  const lines = text.includes('\r') ? text.replace(/\r\n?/g, '\n') : text;
  // The bounds of the line of the last URL: URLs come in order, so each line is measured once.
  let lineStart = 0;
  let lineEnd = -1;
  for (const match of lines.matchAll(BARE_URL)) {
    checkpoint();
    const url = match[0].replace(TRAILING_PUNCTUATION, '');
    const start = match.index;
    const end = start + match[0].length;
    if (start > lineEnd) {
      lineStart = lines.lastIndexOf('\n', start) + 1;
      const lineEndAt = lines.indexOf('\n', end);
      lineEnd = lineEndAt === -1 ? lines.length : lineEndAt;
    }
    const urlLineStart = lineStart;
    const above = () => lineAbove(lines, urlLineStart).slice(-MAX_TEXT * 2);
    const near = `${lines.slice(Math.max(lineStart, start - MAX_TEXT), start)} ${lines.slice(end, Math.min(lineEnd, end + MAX_TEXT))}`;
    const rest = squash(near.replace(/[[\]()<>]/g, ' ').replace(LINK_LABEL_END, ''));
    const own = rest.length > 0 ? rest : squash(above().replace(BARE_URL, ' ').replace(LINK_LABEL_END, ''));
    links.push({ url, text: own, kind: classifyLink(url, own, () => `${above()} ${near}`) });
  }
  return links;
}
