import type { Token } from '../imap-parser.js';
import { stringArg } from '../imap-parser.js';
import { parseSequenceSet } from '../sequence-set.js';
import { bad, no, ok, type CommandSpec, type Completion, type ImapSession, identityOf, mailboxOf } from '../session.js';

type Mode = 'set' | 'add' | 'remove';

/** The new value of one flag under STORE's mode (FLAGS sets, +FLAGS adds, -FLAGS removes). */
function nextValue(mode: Mode, listed: boolean, current: boolean): boolean {
  if (mode === 'set') return listed;
  if (!listed) return current;
  return mode === 'add';
}

function flagNames(tokens: Token[]): string[] | undefined {
  const items = tokens.length === 1 && tokens[0]?.type === 'list' ? tokens[0].items : tokens;
  const names = items.map((t) => (t.type === 'atom' ? t.value.toLowerCase() : undefined));
  return names.some((n) => n === undefined) ? undefined : (names as string[]);
}

/** STORE of \Seen (the REST `read` flag) and \Deleted (this session); other flags are not kept. */
async function store(session: ImapSession, args: Token[], byUid: boolean): Promise<Completion> {
  const set = parseSequenceSet(stringArg(args[0]) ?? '');
  const action = /^([+-]?)FLAGS(\.SILENT)?$/i.exec(stringArg(args[1]) ?? '');
  const flags = flagNames(args.slice(2));
  if (set === undefined || action === null || flags === undefined) return bad('STORE needs a sequence set, [+-]FLAGS[.SILENT] and flags');
  const mailbox = mailboxOf(session);
  if (mailbox.readOnly) return no('[READ-ONLY] The mailbox was opened with EXAMINE');
  const mode: Mode = action[1] === '+' ? 'add' : action[1] === '-' ? 'remove' : 'set';
  const silent = action[2] !== undefined;
  for (const { seq, message } of mailbox.select(set, byUid)) {
    let current = message;
    const seen = nextValue(mode, flags.includes('\\seen'), current.read);
    if (seen !== current.read) {
      await session.service.setSeen(identityOf(session), current, seen);
      current = mailbox.replace(current, { ...current, read: seen });
    }
    mailbox.setDeleted(current, nextValue(mode, flags.includes('\\deleted'), mailbox.isDeleted(current)));
    if (!silent) await session.write(`* ${seq} FETCH (FLAGS ${mailbox.flags(current)}${byUid ? ` UID ${current.uid}` : ''})\r\n`);
  }
  return ok(`${byUid ? 'UID ' : ''}STORE completed`);
}

export const storeCommands: Record<string, CommandSpec> = {
  STORE: { states: ['selected'], handler: (session, command) => store(session, command.args, false) },
  'UID STORE': { states: ['selected'], handler: (session, command) => store(session, command.args, true) },
};
