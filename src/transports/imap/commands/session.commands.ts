import { VERSION } from '../../../version.js';
import { imapString } from '../imap-format.js';
import { ok, type CommandSpec } from '../session.js';

const ANY = ['not-authenticated', 'authenticated', 'selected'] as const;
const SELECTED = ['selected'] as const;
const LOGGED_IN = ['authenticated', 'selected'] as const;

export const sessionCommands: Record<string, CommandSpec> = {
  CAPABILITY: {
    states: ANY,
    handler: async (session) => {
      await session.write(`* CAPABILITY ${session.capabilities()}\r\n`);
      return ok('CAPABILITY completed');
    },
  },
  NOOP: {
    states: ANY,
    handler: async (session) => {
      if (session.state === 'selected') await session.syncMailbox();
      return ok('NOOP completed');
    },
  },
  CHECK: {
    states: SELECTED,
    handler: async (session) => {
      await session.syncMailbox();
      return ok('CHECK completed');
    },
  },
  LOGOUT: {
    states: ANY,
    handler: async (session) => {
      await session.write('* BYE Logging out\r\n');
      session.state = 'logout';
      return ok('LOGOUT completed');
    },
  },
  ID: {
    states: ANY,
    handler: async (session) => {
      await session.write(`* ID (${[imapString('name'), imapString('Mailroom'), imapString('version'), imapString(VERSION)].join(' ')})\r\n`);
      return ok('ID completed');
    },
  },
  NAMESPACE: {
    states: LOGGED_IN,
    handler: async (session) => {
      await session.write('* NAMESPACE (("" "/")) NIL NIL\r\n');
      return ok('NAMESPACE completed');
    },
  },
  // Nothing ENABLE can turn on is offered (no CONDSTORE, UTF8=ACCEPT): the answer is an empty ENABLED.
  ENABLE: {
    states: LOGGED_IN,
    handler: async (session) => {
      await session.write('* ENABLED\r\n');
      return ok('ENABLE completed');
    },
  },
};
