/** The pagination envelope of spec 2.1. */
export interface Page<T> {
  data: T[];
  currentPage: number;
  perPage: number;
  totalItems: number;
  totalPages: number;
  hasNextPage: boolean;
  /** Same as totalItems, for clients of the hosted service's SDK, which read `total`. */
  total: number;
}

export interface PageRequest {
  page: number;
  perPage: number;
}

export function offsetOf(request: PageRequest): number {
  return (request.page - 1) * request.perPage;
}

export function makePage<T>(data: T[], totalItems: number, request: PageRequest): Page<T> {
  const totalPages = Math.ceil(totalItems / request.perPage);
  return {
    data,
    currentPage: request.page,
    perPage: request.perPage,
    totalItems,
    totalPages,
    hasNextPage: request.page < totalPages,
    total: totalItems,
  };
}
