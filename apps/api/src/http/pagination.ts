import { z } from 'zod';

/** `page` from 1, `limit` 1..100 (default 50); anything else is a 400 (docs/api.md#pagination). */
export const paginationQuery = {
  page: z.coerce.number({ error: 'page must be an integer' }).int('page must be an integer').min(1, 'page must be at least 1').default(1),
  limit: z.coerce
    .number({ error: 'limit must be an integer' })
    .int('limit must be an integer')
    .min(1, 'limit must be at least 1')
    .max(100, 'limit must be at most 100')
    .default(50),
};

export interface Page<T> {
  data: T[];
  meta: { page: number; limit: number; total: number; totalPages: number };
}

export function page<T>(data: T[], total: number, p: { page: number; limit: number }): Page<T> {
  return { data, meta: { page: p.page, limit: p.limit, total, totalPages: Math.ceil(total / p.limit) } };
}

export const pageResponse = <T extends z.ZodType>(item: T) =>
  z.object({ data: z.array(item), meta: z.object({ page: z.number().int(), limit: z.number().int(), total: z.number().int(), totalPages: z.number().int() }) });
