import type { FastifySchemaValidationError } from 'fastify';

export interface ValidationProblem {
  /** The parameter or property as the client spelled it: `perPage`, `filter.read`, `tags.1`. */
  field: string | undefined;
  message: string;
}

interface Params {
  missingProperty?: string;
  additionalProperty?: string;
  allowedValue?: unknown;
  allowedValues?: unknown[];
  format?: string;
}

const paramsOf = (error: FastifySchemaValidationError): Params => (error.params ?? {}) as Params;

/** "/perPage" → "perPage", "/tags/1" → "tags.1"; a missing or unknown property names itself. */
function fieldOf(error: FastifySchemaValidationError): string | undefined {
  const params = paramsOf(error);
  const path = error.instancePath.replace(/^\//, '').replace(/\//g, '.');
  const own = params.missingProperty ?? params.additionalProperty;
  if (own !== undefined) return path.length > 0 ? `${path}.${own}` : own;
  return path.length > 0 ? path : undefined;
}

/**
 * One readable sentence from ajv's errors, about the first offending value. A union of literals
 * (our enums) yields one error per literal: those are folded into "must be one of …", and
 * alternative formats (date-time or date) into "must be a valid date-time or date".
 */
export function describeValidationError(errors: readonly FastifySchemaValidationError[]): ValidationProblem {
  const [first] = errors;
  if (first === undefined) return { field: undefined, message: 'Invalid request' };
  const field = fieldOf(first);
  const subject = field ?? 'request';
  const siblings = errors.filter((e) => e.instancePath === first.instancePath);
  const allowed = siblings.flatMap((e) => {
    const params = paramsOf(e);
    if (e.keyword === 'const') return [params.allowedValue];
    return e.keyword === 'enum' ? (params.allowedValues ?? []) : [];
  });
  if (allowed.length > 0) return { field, message: `${subject} must be one of ${allowed.map(String).join(', ')}` };
  const formats = siblings.filter((e) => e.keyword === 'format').map((e) => paramsOf(e).format);
  if (formats.length > 0) return { field, message: `${subject} must be a valid ${formats.join(' or ')}` };
  if (first.keyword === 'additionalProperties') return { field, message: `${subject} is not a known property` };
  if (first.keyword === 'required') return { field, message: `${subject} is required` };
  return { field, message: `${subject} ${first.message ?? 'is invalid'}` };
}
