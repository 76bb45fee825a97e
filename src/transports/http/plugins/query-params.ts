import type { FastifyInstance, FastifyRequest } from 'fastify';
import { InvalidInputError } from '../../../core/errors.js';

/**
 * Query strings are the one place where types are converted (bodies are never coerced: ajv runs with
 * coerceTypes off). Each parameter is converted by what the route's schema declares for it, here,
 * explicitly, before validation:
 * - arrays: `tags=a&tags=b`, `tags[]=a&tags[]=b` (axios) and `tags=a,b` all mean ['a', 'b'];
 * - integers: only plain decimal digits (`1e400`, `1.5`, `0x10` stay strings, so validation answers
 *   400 naming the parameter, and the schema's bounds apply);
 * - booleans: `true` and `false`;
 * - names: `filter[read]` is accepted for a declared `filter.read`.
 * A parameter the route does not declare is a 400 that names it: a client using a filter this server
 * does not know must not get unfiltered data with a 200.
 */

interface PropertySchema {
  type?: string;
  anyOf?: PropertySchema[];
}

type QueryValue = string | string[];
type Properties = Record<string, PropertySchema>;

const ARRAY_SUFFIX = '[]';
const INTEGER = /^-?\d{1,16}$/;
const NUMBER = /^-?\d{1,16}(\.\d{1,16})?$/;
const BOOLEANS: Record<string, boolean> = { true: true, false: false };

const typesOf = (schema: PropertySchema | undefined): string[] =>
  schema === undefined ? [] : schema.anyOf !== undefined ? schema.anyOf.flatMap(typesOf) : schema.type === undefined ? [] : [schema.type];

const unknownParameter = (name: string) =>
  new InvalidInputError('VALIDATION_ERROR', `${name} is not a known query parameter`, { field: name });

function scalar(value: string, types: string[]): unknown {
  if (types.includes('integer') && INTEGER.test(value)) return Number(value);
  if (types.includes('number') && NUMBER.test(value)) return Number(value);
  if (types.includes('boolean') && value in BOOLEANS) return BOOLEANS[value];
  return value;
}

/** ['a,b', ' c '] → ['a', 'b', 'c']: comma-separated and repeated spellings flattened, blanks dropped. */
const listItems = (values: string[]): string[] =>
  values.flatMap((value) => value.split(',')).map((item) => item.trim()).filter((item) => item.length > 0);

/**
 * The declared parameter a key spells: itself, `tags` for `tags[]`, or `filter.read` for the bracket
 * form `filter[read]` (how axios writes nested params).
 */
function declaredName(key: string, properties: Properties): string {
  if (properties[key] !== undefined) return key;
  if (key.endsWith(ARRAY_SUFFIX)) return key.slice(0, -ARRAY_SUFFIX.length);
  const bracket = /^([A-Za-z]+)\[([A-Za-z]+)\]$/.exec(key);
  return bracket === null ? key : `${bracket[1]}.${bracket[2]}`;
}

/** The query as the route's schema expects it, or a 400 for a parameter it does not declare. */
export function normaliseQuery(query: Record<string, QueryValue>, properties: Properties): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  const lists = new Map<string, string[]>();
  for (const [key, value] of Object.entries(query)) {
    const name = declaredName(key, properties);
    const schema = properties[name];
    if (schema === undefined) throw unknownParameter(key);
    const types = typesOf(schema);
    if (types.includes('array')) {
      lists.set(name, [...(lists.get(name) ?? []), ...(Array.isArray(value) ? value : [value])]);
    } else if (key.endsWith(ARRAY_SUFFIX)) {
      throw unknownParameter(key);
    } else {
      // A repeated scalar stays an array, which validation refuses ("must be integer"), naming it.
      result[name] = Array.isArray(value) ? value : scalar(value, types);
    }
  }
  for (const [name, values] of lists) result[name] = listItems(values);
  return result;
}

const propertiesOf = (request: FastifyRequest): Properties => {
  const schema = request.routeOptions.schema?.querystring as { properties?: Properties } | undefined;
  return schema?.properties ?? {};
};

/** Installs the conversion for every route of `app` (the /api/v1 routes). */
export function registerQueryParams(app: FastifyInstance): void {
  app.addHook('preValidation', async (request) => {
    const query = request.query as Record<string, QueryValue> | undefined;
    if (query === undefined || Object.keys(query).length === 0) return;
    request.query = normaliseQuery(query, propertiesOf(request));
  });
}
