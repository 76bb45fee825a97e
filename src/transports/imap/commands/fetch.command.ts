import type { Readable } from 'node:stream';
import { NotFoundError } from '../../../core/errors.js';
import type { ImapMessage, LoadedMessage } from '../../../services/imap-mailbox.service.js';
import { bodyStructure } from '../body-structure.js';
import { envelope } from '../envelope.js';
import { FetchSyntaxError, parseFetchItems, type FetchItem } from '../fetch-items.js';
import { internalDate } from '../imap-format.js';
import { stringArg, type Token } from '../imap-parser.js';
import type { MailboxView } from '../mailbox-view.js';
import { needsStructure, SectionSyntaxError, sectionContent, type SectionContent } from '../sections.js';
import { parseSequenceSet } from '../sequence-set.js';
import { bad, no, ok, type CommandSpec, type Completion, type ImapSession, identityOf, mailboxOf } from '../session.js';

type SectionItem = Extract<FetchItem, { kind: 'section' }>;
/** A response is text and bytes, with large bodies opened as streams only when their turn comes. */
type Piece = string | Buffer | (() => Promise<Readable>);

const STRUCTURE_ITEMS = new Set(['ENVELOPE', 'BODYSTRUCTURE', 'BODY']);

function wantsStructure(items: FetchItem[]): boolean {
  return items.some((i) => (i.kind === 'section' ? needsStructure(i.spec) : STRUCTURE_ITEMS.has(i.kind)));
}

function sectionPieces(session: ImapSession, item: SectionItem, message: ImapMessage, loaded: LoadedMessage): Piece[] {
  const content: SectionContent | undefined = needsStructure(item.spec)
    ? sectionContent(loaded.structure as NonNullable<LoadedMessage['structure']>, item.spec)
    : { kind: 'range', start: 0, end: message.size };
  // A part that does not exist is empty, as Dovecot answers it.
  if (content === undefined) return [`${item.label} {0}\r\n`];
  const length = content.kind === 'bytes' ? content.data.length : content.end - content.start;
  const from = Math.min(item.partial?.start ?? 0, length);
  const to = item.partial === undefined ? length : Math.min(length, from + item.partial.length);
  const label = `${item.label}${item.partial === undefined ? '' : `<${item.partial.start}>`} {${to - from}}\r\n`;
  if (content.kind === 'bytes') return [label, content.data.subarray(from, to)];
  const start = content.start + from;
  const end = content.start + to;
  if (loaded.raw !== undefined) return [label, loaded.raw.subarray(start, end)];
  return [label, () => session.service.openRange(message, start, end)];
}

function itemPieces(session: ImapSession, mailbox: MailboxView, item: FetchItem, message: ImapMessage, loaded: LoadedMessage): Piece[] {
  const structure = loaded.structure;
  switch (item.kind) {
    case 'FLAGS':
      return [`FLAGS ${mailbox.flags(message)}`];
    case 'UID':
      return [`UID ${message.uid}`];
    case 'INTERNALDATE':
      return [`INTERNALDATE ${internalDate(message.receivedAt)}`];
    case 'RFC822.SIZE':
      return [`RFC822.SIZE ${message.size}`];
    case 'ENVELOPE':
      return [`ENVELOPE ${envelope(structure?.fields ?? [])}`];
    case 'BODYSTRUCTURE':
    case 'BODY':
      return structure === undefined ? [] : [`${item.kind} ${bodyStructure(structure, item.kind === 'BODYSTRUCTURE')}`];
    case 'section':
      return sectionPieces(session, item, message, loaded);
  }
}

async function writePieces(session: ImapSession, pieces: Piece[]): Promise<void> {
  let pending: Buffer[] = [];
  const flush = async () => {
    if (pending.length === 0) return;
    const data = pending.length === 1 ? (pending[0] as Buffer) : Buffer.concat(pending);
    pending = [];
    await session.write(data);
  };
  for (const piece of pieces) {
    if (typeof piece === 'function') {
      await flush();
      await session.pipe(await piece());
    } else {
      pending.push(typeof piece === 'string' ? Buffer.from(piece, 'latin1') : piece);
    }
  }
  await flush();
}

async function fetchOne(session: ImapSession, seq: number, message: ImapMessage, items: FetchItem[], load: Promise<LoadedMessage>): Promise<void> {
  const mailbox = mailboxOf(session);
  let current = message;
  let flagsChanged = false;
  if (!mailbox.readOnly && !current.read && items.some((i) => i.kind === 'section' && i.marksSeen)) {
    await session.service.setSeen(identityOf(session), current, true);
    current = mailbox.replace(current, { ...current, read: true });
    flagsChanged = true;
  }
  const loaded = await load;
  const all = flagsChanged && !items.some((i) => i.kind === 'FLAGS') ? [...items, { kind: 'FLAGS' as const }] : items;
  const pieces: Piece[] = [`* ${seq} FETCH (`];
  all.forEach((item, index) => {
    if (index > 0) pieces.push(' ');
    pieces.push(...itemPieces(session, mailbox, item, current, loaded));
  });
  pieces.push(')\r\n');
  await writePieces(session, pieces);
}

/** Messages read ahead of the one being written, so blob reads overlap each other and the socket writes. */
const READ_AHEAD = 16;
const WRITE_BATCH = 32;
const NOTHING: LoadedMessage = { raw: undefined, structure: undefined };

function readAhead(session: ImapSession, messages: ImapMessage[], items: FetchItem[]): { next(index: number): Promise<LoadedMessage> } {
  const needsBytes = items.some((i) => i.kind === 'section');
  const structure = wantsStructure(items);
  const pending = new Map<number, Promise<LoadedMessage>>();
  const start = (index: number) => {
    const message = messages[index];
    if (message === undefined || pending.has(index)) return;
    const load = needsBytes || structure ? session.service.load(message, { bytes: needsBytes, structure }) : Promise.resolve(NOTHING);
    // Handled when its turn comes; until then a failure must not count as unhandled.
    load.catch(() => undefined);
    pending.set(index, load);
  };
  return {
    next(index) {
      for (let i = index; i < index + READ_AHEAD; i++) start(i);
      const load = pending.get(index) as Promise<LoadedMessage>;
      pending.delete(index);
      return load;
    },
  };
}

async function fetch(session: ImapSession, args: Token[], byUid: boolean): Promise<Completion> {
  const set = parseSequenceSet(stringArg(args[0]) ?? '');
  if (set === undefined) return bad('Invalid sequence set');
  let items: FetchItem[];
  try {
    items = parseFetchItems(args[1]);
  } catch (error) {
    if (error instanceof FetchSyntaxError || error instanceof SectionSyntaxError) return bad(error.message);
    throw error;
  }
  if (byUid && !items.some((i) => i.kind === 'UID')) items.unshift({ kind: 'UID' });
  const targets = mailboxOf(session).select(set, byUid);
  const loads = readAhead(session, targets.map((t) => t.message), items);
  let vanished = 0;
  for (const [index, { seq, message }] of targets.entries()) {
    // Responses go out in batches: fewer TLS records and syscalls than one write per message.
    if (index % WRITE_BATCH === 0) {
      session.flush();
      session.cork();
    }
    try {
      await fetchOne(session, seq, message, items, loads.next(index));
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error;
      vanished++;
    }
  }
  session.flush();
  if (vanished > 0) return no(`${vanished} message(s) were deleted meanwhile; NOOP shows the expunges`);
  return ok(`${byUid ? 'UID ' : ''}FETCH completed`);
}

export const fetchCommands: Record<string, CommandSpec> = {
  FETCH: { states: ['selected'], handler: (session, command) => fetch(session, command.args, false) },
  'UID FETCH': { states: ['selected'], handler: (session, command) => fetch(session, command.args, true) },
};
