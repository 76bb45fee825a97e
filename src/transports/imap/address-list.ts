/**
 * RFC 5322 address lists as IMAP ENVELOPE address structures (RFC 3501 §7.4.2): display names are
 * unquoted but not decoded, groups become start/end markers, and a comment stands in for a missing
 * display name (as Dovecot does).
 */
export interface ImapAddress {
  name: string | null;
  route: string | null;
  mailbox: string | null;
  host: string | null;
}

type Token = { kind: 'word' | 'quoted' | 'comment' | 'special'; text: string };

function tokenize(input: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < input.length) {
    const c = input[i] as string;
    if (c === ' ' || c === '\t' || c === '\r' || c === '\n') {
      i++;
    } else if (c === '"') {
      let text = '';
      i++;
      while (i < input.length && input[i] !== '"') {
        if (input[i] === '\\' && i + 1 < input.length) i++;
        text += input[i];
        i++;
      }
      i++;
      tokens.push({ kind: 'quoted', text });
    } else if (c === '(') {
      let depth = 1;
      let text = '';
      i++;
      while (i < input.length && depth > 0) {
        const d = input[i] as string;
        if (d === '\\' && i + 1 < input.length) {
          text += input[i + 1];
          i += 2;
          continue;
        }
        if (d === '(') depth++;
        if (d === ')') depth--;
        if (depth > 0) text += d;
        i++;
      }
      tokens.push({ kind: 'comment', text: text.trim() });
    } else if ('<>,:;@'.includes(c)) {
      tokens.push({ kind: 'special', text: c });
      i++;
    } else {
      let text = '';
      while (i < input.length && !' \t\r\n"(<>,:;@'.includes(input[i] as string)) text += input[i++];
      tokens.push({ kind: 'word', text });
    }
  }
  return tokens;
}

function splitAddrSpec(spec: string): Pick<ImapAddress, 'mailbox' | 'host' | 'route'> {
  let route: string | null = null;
  let rest = spec;
  const colon = spec.indexOf(':');
  if (spec.startsWith('@') && colon > 0) {
    route = spec.slice(0, colon);
    rest = spec.slice(colon + 1);
  }
  const at = rest.lastIndexOf('@');
  if (at < 0) return { route, mailbox: rest, host: null };
  return { route, mailbox: rest.slice(0, at), host: rest.slice(at + 1) };
}

class AddressListParser {
  private i = 0;
  readonly out: ImapAddress[] = [];
  constructor(private readonly tokens: Token[]) {}

  parse(): ImapAddress[] {
    while (this.i < this.tokens.length) this.parseOne(false);
    return this.out;
  }

  private peek(): Token | undefined {
    return this.tokens[this.i];
  }

  /** One mailbox or group; stops after its ',' (or before ';' inside a group). */
  private parseOne(inGroup: boolean): void {
    const phrase: string[] = [];
    const spec: string[] = [];
    let comment: string | null = null;
    let angle: string | null = null;
    while (this.i < this.tokens.length) {
      const token = this.peek() as Token;
      if (token.kind === 'special' && token.text === ',') {
        this.i++;
        break;
      }
      if (token.kind === 'special' && token.text === ';' && inGroup) break;
      this.i++;
      if (token.kind === 'comment') {
        comment ??= token.text;
      } else if (token.kind === 'special' && token.text === '<') {
        angle = this.readAngle();
      } else if (token.kind === 'special' && token.text === ':' && !inGroup && angle === null) {
        this.parseGroup(phrase.join(' '));
        return;
      } else if (token.kind === 'special' && token.text === '@') {
        spec.push('@');
      } else if (token.kind !== 'special') {
        phrase.push(token.text);
        spec.push(token.kind === 'quoted' ? `"${token.text}"` : token.text);
      }
    }
    if (angle !== null) {
      this.out.push({ name: phrase.length > 0 ? phrase.join(' ') : comment, ...splitAddrSpec(angle) });
    } else if (spec.length > 0) {
      this.out.push({ name: comment, ...splitAddrSpec(spec.join('').replace(/^"(.*)"@/, '$1@')) });
    }
  }

  private readAngle(): string {
    let text = '';
    while (this.i < this.tokens.length) {
      const token = this.tokens[this.i++] as Token;
      if (token.kind === 'special' && token.text === '>') break;
      if (token.kind === 'comment') continue;
      text += token.text;
    }
    return text;
  }

  private parseGroup(name: string): void {
    this.out.push({ name: null, route: null, mailbox: name, host: null });
    while (this.i < this.tokens.length) {
      const token = this.peek() as Token;
      if (token.kind === 'special' && token.text === ';') {
        this.i++;
        break;
      }
      this.parseOne(true);
    }
    this.out.push({ name: null, route: null, mailbox: null, host: null });
    const next = this.peek();
    if (next?.kind === 'special' && next.text === ',') this.i++;
  }
}

export function parseAddressList(value: string): ImapAddress[] {
  return new AddressListParser(tokenize(value)).parse();
}
