import type { CommandSpec } from '../session.js';
import { authCommands } from './auth.commands.js';
import { fetchCommands } from './fetch.command.js';
import { idleCommands } from './idle.command.js';
import { mailboxCommands } from './mailbox.commands.js';
import { searchCommands } from './search.command.js';
import { sessionCommands } from './session.commands.js';
import { storeCommands } from './store.command.js';

/** Every command the server understands, by upper-cased name ("UID FETCH" for UID forms). */
export const COMMANDS: Readonly<Record<string, CommandSpec>> = {
  ...sessionCommands,
  ...authCommands,
  ...mailboxCommands,
  ...fetchCommands,
  ...searchCommands,
  ...storeCommands,
  ...idleCommands,
};
