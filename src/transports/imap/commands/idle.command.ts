import { bad, ok, type CommandSpec, type ImapSession, type Completion } from '../session.js';

/**
 * IDLE (RFC 2177): updates are pushed as the event bus reports changes to this inbox (new mail,
 * read flags, deletions, on any node) until the client sends DONE.
 */
async function idle(session: ImapSession): Promise<Completion> {
  await session.write('+ idling\r\n');
  if (session.state === 'selected') await session.syncMailbox();
  const done = session.readLine();
  for (;;) {
    const line = await Promise.race([done, session.mailboxChanged().then(() => undefined)]);
    if (line === undefined) {
      if (session.state === 'selected') await session.syncMailbox();
      continue;
    }
    if (line === null) return bad('Connection closed during IDLE');
    return line.trim().toUpperCase() === 'DONE' ? ok('IDLE terminated') : bad('Expected DONE');
  }
}

export const idleCommands: Record<string, CommandSpec> = {
  IDLE: { states: ['authenticated', 'selected'], handler: (session) => idle(session) },
};
