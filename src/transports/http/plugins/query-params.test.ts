import { describe, expect, it } from 'vitest';
import { AppError } from '../../../core/errors.js';
import { normaliseQuery } from './query-params.js';

const properties = {
  page: { type: 'integer' },
  includeExpired: { type: 'boolean' },
  tags: { type: 'array' },
  'filter.read': { type: 'boolean' },
  subject: { type: 'string' },
};

describe('normaliseQuery', () => {
  it('reads the three array spellings (and mixes) as one list', () => {
    expect(normaliseQuery({ tags: ['a', 'b'] }, properties)).toEqual({ tags: ['a', 'b'] });
    expect(normaliseQuery({ 'tags[]': ['a', 'b'] }, properties)).toEqual({ tags: ['a', 'b'] });
    expect(normaliseQuery({ tags: 'a, b,,' }, properties)).toEqual({ tags: ['a', 'b'] });
    expect(normaliseQuery({ tags: 'a', 'tags[]': 'b,c' }, properties)).toEqual({ tags: ['a', 'b', 'c'] });
  });

  it('converts only plain integers and true/false; anything else is left for validation to refuse', () => {
    expect(normaliseQuery({ page: '3', includeExpired: 'true', subject: '42' }, properties)).toEqual({ page: 3, includeExpired: true, subject: '42' });
    for (const page of ['1e400', '1.5', '0x10', ' 1', '12345678901234567']) expect(normaliseQuery({ page }, properties)).toEqual({ page });
    expect(normaliseQuery({ includeExpired: '1' }, properties)).toEqual({ includeExpired: '1' });
    expect(normaliseQuery({ page: ['1', '2'] }, properties)).toEqual({ page: ['1', '2'] });
  });

  it('accepts the bracket spelling of a dotted name', () => {
    expect(normaliseQuery({ 'filter[read]': 'false' }, properties)).toEqual({ 'filter.read': false });
  });

  it('refuses an undeclared parameter, or [] on a scalar, naming it', () => {
    for (const key of ['q', 'label[]', 'page[]', 'filter[unread]']) {
      const error = (() => {
        try {
          normaliseQuery({ [key]: 'x' }, properties);
        } catch (caught) {
          return caught;
        }
        return undefined;
      })();
      expect(error).toBeInstanceOf(AppError);
      expect(error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: key } });
    }
  });
});
