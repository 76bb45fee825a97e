import { sql, type RawBuilder, type SqlBool } from 'kysely';

/** Small helpers for the portable column types described in schema.ts. */
export const toFlag = (value: boolean): number => (value ? 1 : 0);
export const fromFlag = (value: number | boolean): boolean => value === 1 || value === true;

export function parseJson<T>(text: string): T {
  return JSON.parse(text) as T;
}

/** A LIKE pattern matching `needle` anywhere, lower-cased, with %, _ and \ escaped (used with ESCAPE '\'). */
export function containsPattern(needle: string): string {
  return `%${needle.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

export const nowIso = (): string => new Date().toISOString();

/** Case-insensitive substring match that behaves the same on SQLite and PostgreSQL. */
export function containsIgnoringCase(column: string, needle: string): RawBuilder<SqlBool> {
  return sql<SqlBool>`lower(${sql.ref(column)}) like ${containsPattern(needle)} escape '\\'`;
}
