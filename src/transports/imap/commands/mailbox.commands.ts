import { stringArg, type Token } from '../imap-parser.js';
import { MAILBOX_FLAGS, MailboxView } from '../mailbox-view.js';
import { parseSequenceSet } from '../sequence-set.js';
import { bad, no, ok, type CommandSpec, type Completion, type ImapSession, identityOf, mailboxOf } from '../session.js';

const LOGGED_IN = ['authenticated', 'selected'] as const;
const SELECTED = ['selected'] as const;
const INBOX = 'INBOX';

const isInbox = (name: string | undefined): boolean => name !== undefined && name.toUpperCase() === INBOX;
const nonexistent = (): Completion => no('[NONEXISTENT] Only INBOX exists here');
const cannot = (what: string): Completion => no(`[CANNOT] ${what} is not supported: this server has one read-only INBOX`);

/** LIST pattern match (RFC 3501 §6.3.8): * matches anything, % anything but the "/" delimiter. */
function patternMatches(reference: string, pattern: string, name: string): boolean {
  const source = (reference + pattern)
    .split('')
    .map((c) => (c === '*' ? '.*' : c === '%' ? '[^/]*' : c.replace(/[.+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${source}$`, 'i').test(name);
}

function list(kind: 'LIST' | 'LSUB'): CommandSpec {
  return {
    states: LOGGED_IN,
    handler: async (session, command) => {
      const reference = stringArg(command.args[0]);
      const pattern = stringArg(command.args[1]);
      if (reference === undefined || pattern === undefined) return bad(`${kind} needs a reference and a mailbox pattern`);
      if (pattern === '' && kind === 'LIST') {
        await session.write('* LIST (\\Noselect) "/" ""\r\n');
      } else if (patternMatches(reference, pattern, INBOX)) {
        await session.write(`* ${kind} (${kind === 'LIST' ? '\\HasNoChildren' : ''}) "/" INBOX\r\n`);
      }
      return ok(`${kind} completed`);
    },
  };
}

function open(readOnly: boolean): CommandSpec {
  return {
    states: LOGGED_IN,
    handler: async (session, command) => {
      session.state = 'authenticated';
      session.mailbox = undefined;
      if (!isInbox(stringArg(command.args[0]))) return nonexistent();
      const identity = identityOf(session);
      const mailbox = new MailboxView(await session.service.messages(identity), readOnly, identity.uidValidity);
      const lines = [
        `* FLAGS ${MAILBOX_FLAGS}`,
        `* OK [PERMANENTFLAGS (${readOnly ? '' : '\\Seen'})] \\Deleted lasts for this session`,
        `* ${mailbox.exists} EXISTS`,
        '* 0 RECENT',
        ...(mailbox.firstUnseen === undefined ? [] : [`* OK [UNSEEN ${mailbox.firstUnseen}] First unseen`]),
        `* OK [UIDVALIDITY ${mailbox.uidValidity}] UIDs valid`,
        `* OK [UIDNEXT ${mailbox.uidNext}] Predicted next UID`,
      ];
      await session.write(`${lines.join('\r\n')}\r\n`);
      session.mailbox = mailbox;
      session.state = 'selected';
      return ok(`[${readOnly ? 'READ-ONLY' : 'READ-WRITE'}] ${readOnly ? 'EXAMINE' : 'SELECT'} completed`);
    },
  };
}

const STATUS_ITEMS = new Set(['MESSAGES', 'RECENT', 'UIDNEXT', 'UIDVALIDITY', 'UNSEEN']);

async function status(session: ImapSession, args: Token[]): Promise<Completion> {
  const items = args[1];
  if (items === undefined || items.type !== 'list') return bad('STATUS needs a mailbox and a list of items');
  const names = items.items.map((i) => stringArg(i)?.toUpperCase() ?? '');
  const unknown = names.find((n) => !STATUS_ITEMS.has(n));
  if (unknown !== undefined) return bad(`Unknown STATUS item ${unknown}`);
  if (!isInbox(stringArg(args[0]))) return nonexistent();
  const identity = identityOf(session);
  const view = new MailboxView(await session.service.messages(identity), true, identity.uidValidity);
  const values: Record<string, number> = { MESSAGES: view.exists, RECENT: 0, UIDNEXT: view.uidNext, UIDVALIDITY: view.uidValidity, UNSEEN: view.unseenCount };
  await session.write(`* STATUS INBOX (${names.map((n) => `${n} ${values[n]}`).join(' ')})\r\n`);
  return ok('STATUS completed');
}

function deselect(session: ImapSession): void {
  session.state = 'authenticated';
  session.mailbox = undefined;
}

async function expunge(session: ImapSession, uidSet: string | undefined): Promise<Completion> {
  const mailbox = mailboxOf(session);
  if (mailbox.readOnly) return no('[READ-ONLY] The mailbox was opened with EXAMINE');
  let targets = mailbox.deletedMessages();
  if (uidSet !== undefined) {
    const set = parseSequenceSet(uidSet);
    if (set === undefined) return bad('Invalid UID set');
    const chosen = new Set(mailbox.select(set, true).map((t) => t.message));
    targets = targets.filter((m) => chosen.has(m));
  }
  if (targets.length > 0) await session.service.expunge(identityOf(session), targets);
  await session.syncMailbox();
  return ok('EXPUNGE completed');
}

const refusal = (name: string, states: readonly ImapSession['state'][] = LOGGED_IN): CommandSpec => ({
  states,
  handler: async () => cannot(name),
});

export const mailboxCommands: Record<string, CommandSpec> = {
  LIST: list('LIST'),
  LSUB: list('LSUB'),
  SELECT: open(false),
  EXAMINE: open(true),
  STATUS: { states: LOGGED_IN, handler: async (session, command) => status(session, command.args) },
  SUBSCRIBE: { states: LOGGED_IN, handler: async (_s, command) => (isInbox(stringArg(command.args[0])) ? ok('SUBSCRIBE completed') : nonexistent()) },
  UNSUBSCRIBE: { states: LOGGED_IN, handler: async (_s, command) => (isInbox(stringArg(command.args[0])) ? ok('UNSUBSCRIBE completed') : nonexistent()) },
  CREATE: refusal('CREATE'),
  DELETE: refusal('DELETE'),
  RENAME: refusal('RENAME'),
  APPEND: refusal('APPEND'),
  COPY: refusal('COPY', SELECTED),
  MOVE: refusal('MOVE', SELECTED),
  'UID COPY': refusal('COPY', SELECTED),
  'UID MOVE': refusal('MOVE', SELECTED),
  EXPUNGE: { states: SELECTED, handler: async (session) => expunge(session, undefined) },
  'UID EXPUNGE': {
    states: SELECTED,
    handler: async (session, command) => {
      const set = stringArg(command.args[0]);
      return set === undefined ? bad('UID EXPUNGE needs a UID set') : expunge(session, set);
    },
  },
  UNSELECT: {
    states: SELECTED,
    handler: async (session) => {
      deselect(session);
      return ok('UNSELECT completed');
    },
  },
  /** CLOSE expunges silently; if this key may not delete, the mailbox is still closed but the reply is NO. */
  CLOSE: {
    states: SELECTED,
    handler: async (session) => {
      const mailbox = mailboxOf(session);
      const deleted = mailbox.readOnly ? [] : mailbox.deletedMessages();
      deselect(session);
      if (deleted.length > 0) await session.service.expunge(identityOf(session), deleted);
      return ok('CLOSE completed');
    },
  },
};
