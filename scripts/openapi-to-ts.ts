/**
 * Turns Mailroom's OpenAPI 3.1 document into TypeScript types for the client SDK (src/client):
 * one type per shared component schema and an `Operations` map keyed by "METHOD /path" with the
 * path parameters, query, JSON body and success response of each operation. Covers the JSON
 * Schema that TypeBox emits (objects, arrays, unions, literals, records, refs, nullable).
 */
interface JsonSchema {
  $ref?: string;
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  additionalProperties?: boolean | JsonSchema;
  patternProperties?: Record<string, JsonSchema>;
  description?: string;
}

interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  schema?: JsonSchema;
  description?: string;
}

interface Operation {
  parameters?: Parameter[];
  requestBody?: { content?: Record<string, { schema?: JsonSchema }> };
  responses?: Record<string, { description?: string; content?: Record<string, { schema?: JsonSchema }> }>;
  summary?: string;
}

export interface OpenApiDocument {
  components?: { schemas?: Record<string, JsonSchema> };
  paths: Record<string, Record<string, Operation>>;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

const key = (name: string) => (IDENTIFIER.test(name) ? name : JSON.stringify(name));
const pad = (depth: number) => '  '.repeat(depth);
const comment = (text: string | undefined, depth: number) => (text ? `${pad(depth)}/** ${text.replace(/\*\//g, '*\\/')} */\n` : '');
const refName = (ref: string) => ref.replace(/^#\/components\/schemas\//, '');

function union(members: string[]): string {
  const unique = [...new Set(members)];
  return unique.length === 1 ? (unique[0] as string) : unique.map((m) => (m.includes('=>') ? `(${m})` : m)).join(' | ');
}

function objectType(schema: JsonSchema, depth: number): string {
  const required = new Set(schema.required ?? []);
  const lines = Object.entries(schema.properties ?? {}).map(
    ([name, property]) => `${comment(property.description, depth + 1)}${pad(depth + 1)}${key(name)}${required.has(name) ? '' : '?'}: ${toTs(property, depth + 1)};`,
  );
  const extra = schema.patternProperties ? Object.values(schema.patternProperties)[0] : typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined;
  if (extra !== undefined) {
    if (lines.length === 0) return `Record<string, ${toTs(extra, depth)}>`;
    lines.push(`${pad(depth + 1)}[key: string]: unknown;`);
  }
  return lines.length === 0 ? 'Record<string, unknown>' : `{\n${lines.join('\n')}\n${pad(depth)}}`;
}

/** One JSON Schema as a TypeScript type expression. */
export function toTs(schema: JsonSchema | undefined, depth = 0): string {
  if (schema === undefined) return 'unknown';
  if (schema.$ref !== undefined) return refName(schema.$ref);
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  if (schema.enum !== undefined) return union(schema.enum.map((value) => JSON.stringify(value)));
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives !== undefined) return union(alternatives.map((s) => toTs(s, depth)));
  if (schema.allOf !== undefined) return schema.allOf.map((s) => toTs(s, depth)).join(' & ');
  if (Array.isArray(schema.type)) return union(schema.type.map((type) => toTs({ ...schema, type }, depth)));
  switch (schema.type) {
    case 'string':
      return 'string';
    case 'integer':
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'null':
      return 'null';
    case 'array':
      return `Array<${toTs(schema.items, depth)}>`;
    case 'object':
      return objectType(schema, depth);
    default:
      return schema.properties !== undefined ? objectType(schema, depth) : 'unknown';
  }
}

function parametersType(parameters: Parameter[], where: 'path' | 'query', depth: number): string {
  const selected = parameters.filter((p) => p.in === where);
  if (selected.length === 0) return 'Record<string, never>';
  const properties = Object.fromEntries(selected.map((p) => [p.name, { ...p.schema, description: p.description }]));
  return objectType({ type: 'object', properties, required: selected.filter((p) => p.required).map((p) => p.name) }, depth);
}

/** One success status: its JSON type, Blob for other content, void for no content. */
function responseType(status: string, response: { content?: Record<string, { schema?: JsonSchema }> } | undefined, depth: number): string {
  if (status === '204') return 'void';
  const content = response?.content ?? {};
  if (content['application/json'] !== undefined) return toTs(content['application/json'].schema, depth);
  return Object.keys(content).some((type) => !type.startsWith('application/json')) ? 'Blob' : 'unknown';
}

/** Every 2xx the operation documents, as a union (sign-up answers 201 with a session or 202 `check-email`). */
function successResponse(operation: Operation, depth: number): string {
  const successes = Object.entries(operation.responses ?? {}).filter(([code]) => /^2\d\d$/.test(code));
  if (successes.length === 0) return 'void';
  return [...new Set(successes.map(([status, response]) => responseType(status, response, depth)))].join(' | ');
}

function operationEntry(method: string, path: string, operation: Operation): string {
  const parameters = operation.parameters ?? [];
  const body = operation.requestBody?.content?.['application/json']?.schema;
  return [
    `${comment(operation.summary, 1)}  ${JSON.stringify(`${method.toUpperCase()} ${path}`)}: {`,
    `    path: ${parametersType(parameters, 'path', 2)};`,
    `    query: ${parametersType(parameters, 'query', 2)};`,
    `    body: ${body === undefined ? 'never' : toTs(body, 2)};`,
    `    response: ${successResponse(operation, 2)};`,
    '  };',
  ].join('\n');
}

/** The whole generated module. */
export function openApiToTs(doc: OpenApiDocument): string {
  const components = Object.entries(doc.components?.schemas ?? {}).map(
    ([name, schema]) => `${comment(schema.description, 0)}export type ${name} = ${toTs(schema, 0)};`,
  );
  const operations = Object.entries(doc.paths)
    .sort(([a], [b]) => a.localeCompare(b))
    .flatMap(([path, item]) => METHODS.filter((method) => item[method] !== undefined).map((method) => operationEntry(method, path, item[method] as Operation)));
  return [
    '// Generated from the OpenAPI document by scripts/generate-client-types.ts. Do not edit: run `npm run client:generate`.',
    '',
    ...components.map((c) => `${c}\n`),
    '/** Every REST operation by "METHOD /path": path parameters, query, JSON body and success response. */',
    'export interface Operations {',
    operations.join('\n'),
    '}',
    '',
  ].join('\n');
}
