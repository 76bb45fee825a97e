import { describe, expect, it } from 'vitest';
import { describeValidationError } from './validation-error.js';

const error = (keyword: string, instancePath: string, params: Record<string, unknown> = {}, message?: string) => ({
  keyword,
  instancePath,
  schemaPath: '#',
  params,
  message,
});

describe('describeValidationError', () => {
  it('names the parameter and keeps ajv’s reason', () => {
    expect(describeValidationError([error('maximum', '/perPage', { limit: 100 }, 'must be <= 100')])).toEqual({
      field: 'perPage',
      message: 'perPage must be <= 100',
    });
  });

  it('folds a union of literals into the allowed values', () => {
    const errors = ['createdAt', 'from', 'subject'].map((v) => error('const', '/sort[field]', { allowedValue: v }, 'must be equal to constant'));
    errors.push(error('anyOf', '/sort[field]', {}, 'must match a schema in anyOf'));
    expect(describeValidationError(errors)).toEqual({ field: 'sort[field]', message: 'sort[field] must be one of createdAt, from, subject' });
  });

  it('folds alternative formats', () => {
    const errors = [error('format', '/filter.createdAfter', { format: 'date-time' }), error('format', '/filter.createdAfter', { format: 'date' })];
    expect(describeValidationError(errors).message).toBe('filter.createdAfter must be a valid date-time or date');
  });

  it('names missing, unknown and nested properties', () => {
    expect(describeValidationError([error('required', '', { missingProperty: 'url' })])).toEqual({ field: 'url', message: 'url is required' });
    expect(describeValidationError([error('additionalProperties', '', { additionalProperty: 'bogus' })])).toEqual({
      field: 'bogus',
      message: 'bogus is not a known property',
    });
    expect(describeValidationError([error('required', '/filter', { missingProperty: 'x' })]).field).toBe('filter.x');
    expect(describeValidationError([error('minLength', '/tags/1', {}, 'must NOT have fewer than 1 characters')]).field).toBe('tags.1');
  });

  it('still answers for an error without a path', () => {
    expect(describeValidationError([error('type', '', {}, 'must be object')])).toEqual({ field: undefined, message: 'request must be object' });
    expect(describeValidationError([])).toEqual({ field: undefined, message: 'Invalid request' });
  });
});
