import { z } from 'zod';

/**
 * An id: any 8-4-4-4-12 hex UUID, as Postgres takes it (`z.uuid()` would also demand an RFC 9562
 * version and variant, and answer 400 where an unknown id must get 404), in any letter case, handed
 * on lowercased (the form Postgres returns and ids are compared in).
 */
export const uuid = (label = 'id') => z.guid({ error: `${label} must be a valid UUID` }).toLowerCase();
