import type pg from 'pg';

/** Named statements kept per connection, the least recently used deallocated beyond it. */
export const NAMED_STATEMENTS_PER_CONNECTION = 100;

/** SQLSTATE 25P02: the transaction failed, commands are ignored until its end. */
const IN_FAILED_TRANSACTION = '25P02';
/** SQLSTATE 0A000, which PostgreSQL also gives a prepared statement whose result columns changed type. */
const FEATURE_NOT_SUPPORTED = '0A000';

type Query = (...args: unknown[]) => Promise<pg.QueryResult>;

/**
 * Sends a connection's parameterised queries (what Kysely sends: SQL text and values) as named
 * statements, so the backend parses and plans each text once per connection instead of on every
 * execution: about a third less of PostgreSQL's own CPU per ingested message (docs/decisions.md D76). Texts vary with
 * row counts and list lengths, so at most `limit` stay prepared; the least recently used is
 * deallocated, ahead of the new one in the connection's queue. A DEALLOCATE refused (inside a failed
 * transaction) is sent again with the next one. A text with a `*` (`select *`, `returning *`,
 * `count(*)`) stays unnamed: a prepared `*` fails with "cached plan must not change result type" once
 * another node's migration adds a column, where an unnamed one just returns the new column. A
 * statement refused because a column it returns changed type (another node's migration again) is
 * forgotten, so only that execution fails and the next one prepares the text anew.
 */
export function nameStatements(client: pg.ClientBase, limit = NAMED_STATEMENTS_PER_CONNECTION): void {
  const query = client.query.bind(client) as Query;
  const names = new Map<string, string>();
  let undeallocated: string[] = [];
  let made = 0;

  // pg remembers every statement a connection prepared (an internal record, hence the guard).
  const prepared = (client as unknown as { connection?: { parsedStatements?: Record<string, string> } }).connection?.parsedStatements;
  const deallocate = (name: string) => {
    query(`deallocate ${name}`).then(
      () => delete prepared?.[name],
      (error: { code?: string }) => {
        // Refused inside a failed transaction: again later. Anything else (it was never prepared,
        // or a pooler keeps statements under its own names): nothing left to deallocate.
        if (error.code === IN_FAILED_TRANSACTION) undeallocated.push(name);
        else delete prepared?.[name];
      },
    );
  };

  /** Forgets a text's name and deallocates it, with any deallocation refused earlier. */
  const drop = (text: string, name: string) => {
    names.delete(text);
    const retry = undeallocated;
    undeallocated = [];
    for (const old of [...retry, name]) deallocate(old);
  };

  const nameFor = (text: string): string => {
    const known = names.get(text);
    if (known !== undefined) {
      names.delete(text);
      names.set(text, known);
      return known;
    }
    made += 1;
    const name = `mailroom_${made}`;
    names.set(text, name);
    if (names.size > limit) {
      const [oldestText, oldestName] = names.entries().next().value as [string, string];
      drop(oldestText, oldestName);
    }
    return name;
  };

  // Only the promise form with text and values is named; any other call (a callback, a config
  // object, no values) goes through as it came.
  const named: Query = (...args) => {
    const [text, values] = args;
    if (args.length !== 2 || typeof text !== 'string' || !Array.isArray(values) || values.length === 0 || text.includes('*')) return query(...args);
    const name = nameFor(text);
    return query({ name, text, values }).catch((error: { code?: string }) => {
      if (error.code === FEATURE_NOT_SUPPORTED && names.get(text) === name) drop(text, name);
      throw error;
    });
  };
  (client as unknown as { query: Query }).query = named;
}
