import type { Token } from '../imap-parser.js';
import { matches, needsContent, parseSearch, SearchSyntaxError } from '../search-criteria.js';
import { bad, no, ok, type CommandSpec, type Completion, type ImapSession, identityOf, mailboxOf } from '../session.js';

const CHARSETS = new Set(['UTF-8', 'US-ASCII']);

async function search(session: ImapSession, args: Token[], byUid: boolean): Promise<Completion> {
  let parsed: ReturnType<typeof parseSearch>;
  try {
    parsed = parseSearch(args);
  } catch (error) {
    if (error instanceof SearchSyntaxError) return bad(error.message);
    throw error;
  }
  if (parsed.charset !== undefined && !CHARSETS.has(parsed.charset.toUpperCase())) return no('[BADCHARSET (UTF-8 US-ASCII)] Unsupported charset');
  const mailbox = mailboxOf(session);
  const messages = mailbox.messages;
  const rows = needsContent(parsed.criterion) ? await session.service.searchable(identityOf(session), messages) : undefined;
  const found: number[] = [];
  messages.forEach((message, index) => {
    const subject = { seq: index + 1, message, deleted: mailbox.isDeleted(message), row: rows?.get(message.emailId) };
    if (matches(parsed.criterion, subject, mailbox.exists, mailbox.lastUid)) found.push(byUid ? message.uid : index + 1);
  });
  await session.write(`* SEARCH${found.map((n) => ` ${n}`).join('')}\r\n`);
  return ok(`${byUid ? 'UID ' : ''}SEARCH completed`);
}

export const searchCommands: Record<string, CommandSpec> = {
  SEARCH: { states: ['selected'], handler: (session, command) => search(session, command.args, false) },
  'UID SEARCH': { states: ['selected'], handler: (session, command) => search(session, command.args, true) },
};
