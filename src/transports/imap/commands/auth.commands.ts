import { stringArg } from '../imap-parser.js';
import { bad, no, ok, type CommandSpec, type Completion, type ImapSession } from '../session.js';

async function login(session: ImapSession, username: string, password: string): Promise<Completion> {
  const identity = await session.service.login(username, password, session.remoteAddress);
  if (!session.authenticate(identity)) return no('[LIMIT] Too many connections to this inbox');
  return ok(`[CAPABILITY ${session.capabilities()}] Logged in`);
}

/** SASL PLAIN (RFC 4616): authzid NUL authcid NUL password. */
function decodePlain(base64: string): { authzid: string; username: string; password: string } | undefined {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(base64)) return undefined;
  const parts = Buffer.from(base64, 'base64').toString('utf8').split('\0');
  if (parts.length !== 3) return undefined;
  const [authzid, username, password] = parts as [string, string, string];
  return { authzid, username, password };
}

const NOT_AUTHENTICATED = ['not-authenticated'] as const;

export const authCommands: Record<string, CommandSpec> = {
  LOGIN: {
    states: NOT_AUTHENTICATED,
    handler: async (session, command) => {
      const username = stringArg(command.args[0]);
      const password = stringArg(command.args[1]);
      if (username === undefined || password === undefined || command.args.length !== 2) return bad('LOGIN needs a username and a password');
      return login(session, Buffer.from(username, 'latin1').toString('utf8'), Buffer.from(password, 'latin1').toString('utf8'));
    },
  },
  AUTHENTICATE: {
    states: NOT_AUTHENTICATED,
    handler: async (session, command) => {
      const mechanism = stringArg(command.args[0])?.toUpperCase();
      if (mechanism !== 'PLAIN') return no('[CANNOT] Only AUTHENTICATE PLAIN is supported');
      let response = stringArg(command.args[1]);
      if (response === undefined) {
        await session.write('+ \r\n');
        const line = await session.readLine();
        if (line === null) return bad('Connection closed during AUTHENTICATE');
        response = line.trim();
      }
      if (response === '*') return bad('AUTHENTICATE cancelled');
      const credentials = decodePlain(response === '=' ? '' : response);
      if (credentials === undefined) return bad('Malformed SASL PLAIN response');
      // Acting as another user (a different authzid) is never allowed.
      if (credentials.authzid !== '' && credentials.authzid.toLowerCase() !== credentials.username.toLowerCase()) {
        return no('[AUTHENTICATIONFAILED] Authentication failed');
      }
      return login(session, credentials.username, credentials.password);
    },
  },
};
