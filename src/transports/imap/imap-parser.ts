/** IMAP command syntax (RFC 3501 §9): tag, command name, then atoms, strings, literals and lists. */

export type Token = { type: 'atom'; value: string } | { type: 'string'; value: string } | { type: 'list'; items: Token[] };

export interface Command {
  tag: string;
  /** Upper-cased; "UID FETCH" style for UID commands. */
  name: string;
  args: Token[];
}

export class ImapSyntaxError extends Error {
  constructor(
    message: string,
    readonly tag: string | undefined,
  ) {
    super(message);
  }
}

/** A command line as read: text runs (latin1) and literal contents, in order. */
export type CommandPieces = Array<string | Buffer>;

const ATOM_END = new Set([' ', '(', ')', '"', '{', '\r', '\n']);

class Tokenizer {
  private piece = 0;
  private pos = 0;

  constructor(private readonly pieces: CommandPieces) {}

  private get text(): string | Buffer | undefined {
    return this.pieces[this.piece];
  }

  private skipSpaces(): void {
    for (;;) {
      const text = this.text;
      if (typeof text !== 'string') return;
      while (this.pos < text.length && text[this.pos] === ' ') this.pos++;
      if (this.pos < text.length) return;
      if (this.piece >= this.pieces.length - 1) return;
      this.piece++;
      this.pos = 0;
    }
  }

  atEnd(): boolean {
    this.skipSpaces();
    const text = this.text;
    return text === undefined || (typeof text === 'string' && this.pos >= text.length && this.piece >= this.pieces.length - 1);
  }

  next(depth = 0): Token | ')' {
    this.skipSpaces();
    const text = this.text;
    if (text === undefined) throw new Error('unexpected end of command');
    if (typeof text !== 'string') {
      this.piece++;
      this.pos = 0;
      return { type: 'string', value: text.toString('latin1') };
    }
    const c = text[this.pos];
    if (c === undefined) throw new Error('unexpected end of command');
    if (c === ')') {
      this.pos++;
      return ')';
    }
    if (c === '(') {
      if (depth > 20) throw new Error('lists nested too deeply');
      this.pos++;
      const items: Token[] = [];
      for (;;) {
        const token = this.next(depth + 1);
        if (token === ')') return { type: 'list', items };
        items.push(token);
      }
    }
    if (c === '"') return this.quoted(text);
    return this.atom(text);
  }

  private quoted(text: string): Token {
    let value = '';
    let i = this.pos + 1;
    for (; i < text.length; i++) {
      const c = text[i] as string;
      if (c === '\\' && i + 1 < text.length) {
        value += text[++i];
        continue;
      }
      if (c === '"') break;
      value += c;
    }
    if (i >= text.length) throw new Error('unterminated quoted string');
    this.pos = i + 1;
    return { type: 'string', value };
  }

  /** Atoms may carry a bracketed section with spaces inside, e.g. BODY[HEADER.FIELDS (DATE)]<0.10>. */
  private atom(text: string): Token {
    let i = this.pos;
    let brackets = 0;
    for (; i < text.length; i++) {
      const c = text[i] as string;
      if (c === '[') brackets++;
      else if (c === ']') brackets = Math.max(0, brackets - 1);
      else if (brackets === 0 && ATOM_END.has(c)) break;
    }
    if (i === this.pos) throw new Error(`unexpected character ${JSON.stringify(text[i])}`);
    const value = text.slice(this.pos, i);
    this.pos = i;
    return { type: 'atom', value };
  }
}

export function parseCommand(pieces: CommandPieces): Command {
  const first = pieces[0];
  const tagMatch = typeof first === 'string' ? /^([^\s(){%*"\\+]+)(?: |$)/.exec(first) : null;
  const tag = tagMatch?.[1];
  try {
    if (tag === undefined) throw new Error('missing tag');
    const tokenizer = new Tokenizer([(first as string).slice(tag.length), ...pieces.slice(1)]);
    const nameToken = tokenizer.next();
    if (nameToken === ')' || nameToken.type !== 'atom') throw new Error('missing command name');
    let name = nameToken.value.toUpperCase();
    if (name === 'UID') {
      const sub = tokenizer.next();
      if (sub === ')' || sub.type !== 'atom') throw new Error('UID needs a command');
      name = `UID ${sub.value.toUpperCase()}`;
    }
    const args: Token[] = [];
    while (!tokenizer.atEnd()) {
      const token = tokenizer.next();
      if (token === ')') throw new Error('unbalanced parenthesis');
      args.push(token);
    }
    return { tag, name, args };
  } catch (error) {
    throw new ImapSyntaxError((error as Error).message, tag);
  }
}

/** The value of an atom or string argument (astring); undefined for a list or a missing argument. */
export function stringArg(token: Token | undefined): string | undefined {
  return token === undefined || token.type === 'list' ? undefined : token.value;
}

/** The command name as typed, before the arguments are tokenised (to refuse APPEND before its literal). */
export function peekCommandName(line: string): string | undefined {
  const match = /^\S+ (?:UID )?([A-Za-z]+)/i.exec(line);
  return match?.[1]?.toUpperCase();
}
