import { Type, type TSchema } from '@sinclair/typebox';

export const ErrorBody = Type.Object(
  {
    statusCode: Type.Integer({ examples: [404] }),
    error: Type.String({ description: 'HTTP reason phrase', examples: ['Not Found'] }),
    code: Type.String({ description: 'Stable machine-readable code, listed in docs/errors.md', examples: ['EMAIL_NOT_FOUND'] }),
    message: Type.String(),
    field: Type.Optional(Type.String({ description: 'The offending parameter, for validation errors' })),
  },
  { $id: 'ErrorBody', title: 'Error' },
);

/** Error responses every authenticated route can give. */
export const errorResponses = {
  400: Type.Ref(ErrorBody, { description: 'Invalid parameters; `field` names the offending one' }),
  401: Type.Ref(ErrorBody, { description: 'Missing, unknown, deactivated or expired API key' }),
  403: Type.Ref(ErrorBody, { description: 'An inbox-scoped key used outside its inbox or on a management route' }),
  404: Type.Ref(ErrorBody, { description: 'Not found, or owned by another account' }),
  429: Type.Ref(ErrorBody, { description: 'Rate limit exceeded' }),
};

export const Uuid = Type.String({ format: 'uuid' });
export const IsoDate = Type.String({ format: 'date-time' });
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

const PageFields = <T extends TSchema>(item: T) => ({
  data: Type.Array(item),
  currentPage: Type.Integer(),
  perPage: Type.Integer(),
  totalItems: Type.Integer(),
  totalPages: Type.Integer(),
  hasNextPage: Type.Boolean(),
  total: Type.Integer({ description: 'Same as totalItems (the name the hosted service\'s SDK reads)' }),
});

/** The pagination envelope of spec 2.1, plus `total`. */
export const PageOf = <T extends TSchema>(item: T, title: string) => Type.Object(PageFields(item), { title });

/** The envelope of inbox message lists, which also carry `hasMore` (= hasNextPage) as the SDK reads it. */
export const MessagePageOf = <T extends TSchema>(item: T, title: string) =>
  Type.Object({ ...PageFields(item), hasMore: Type.Boolean({ description: 'Same as hasNextPage' }) }, { title });

/** Keeps (page - 1) * perPage a safe SQL offset on both databases; no real list gets near it. */
const MAX_PAGE = 1_000_000;

export const PageQuery = (defaultPerPage: number, maxPerPage: number) => ({
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE, default: 1, description: `Page number, from 1 (max ${MAX_PAGE})` })),
  perPage: Type.Optional(Type.Integer({ minimum: 1, maximum: maxPerPage, default: defaultPerPage, description: `Items per page (max ${maxPerPage})` })),
});

export const IdParam = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });
