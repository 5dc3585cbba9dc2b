import { z } from 'zod';
import { pushOptionsSchema } from '@herald/core';
import { uuid } from '../../http/uuid';

export const NAME_MAX = 200;
export const TITLE_MAX = 1000;
export const BODY_MAX = 4000;
/** FCM refuses a message over 4 KB, so the static payload alone may not be bigger. */
export const DATA_MAX_BYTES = 4096;
export const IMPORT_MAX_BYTES = 1024 * 1024;
export const IMPORT_MAX_TEMPLATES = 1000;

/** FCM's reserved data keys: a template using one could never be sent. */
const RESERVED_DATA_KEY = /^(from|message_type|notification)$|^(google|gcm)/;

const text = (field: string, max: number) =>
  z
    .string({ error: `${field} must be a string` })
    .min(1, `${field} is required`)
    .max(max, `${field} must be at most ${max} characters`);

export const templateName = z
  .string({ error: 'name must be a string' })
  .trim()
  .min(1, 'name is required')
  .max(NAME_MAX, `name must be at most ${NAME_MAX} characters`);
export const templateTitle = text('title', TITLE_MAX);
export const templateBody = text('body', BODY_MAX);

/**
 * Key → any JSON value; non-string values are JSON-encoded when sent (docs/delivery.md). The values
 * come out of a parsed JSON body or file, so each is a JSON value already (`z.unknown()` rather than
 * the recursive `z.json()`, which says no more and which API documents and client generators would
 * have to unfold).
 */
export const templateData = z
  .record(z.string().min(1, 'data keys must not be empty').max(256, 'data keys must be at most 256 characters'), z.unknown(), {
    error: 'data must be an object of keys to values',
  })
  .superRefine((data, ctx) => {
    for (const key of Object.keys(data)) {
      if (RESERVED_DATA_KEY.test(key)) ctx.addIssue({ code: 'custom', path: [key], message: `data key "${key}" is reserved by FCM` });
    }
    if (Buffer.byteLength(JSON.stringify(data), 'utf8') > DATA_MAX_BYTES) {
      ctx.addIssue({ code: 'custom', message: `data must be at most ${DATA_MAX_BYTES} bytes as JSON` });
    }
  });

/** Default delivery and platform options of the template's sends; a send's own values win field by field. */
export const templateOptions = pushOptionsSchema.describe(
  "Default options of this template's sends (priority, ttl, collapseKey, android, apns, webpush); a send's own values win field by field",
);

export const createTemplateBody = z.object({
  projectId: uuid('projectId'),
  name: templateName,
  title: templateTitle,
  body: templateBody,
  data: templateData.nullish(),
  options: templateOptions.nullish(),
});

export const updateTemplateBody = z.object({
  /** Only accepted when it names the template's own project (`projectId cannot be updated` otherwise). */
  projectId: z.unknown().optional(),
  name: templateName.optional(),
  title: templateTitle.optional(),
  body: templateBody.optional(),
  /** Replaces the whole payload; null clears it. */
  data: templateData.nullish(),
  /** Replaces every default option; null clears them. */
  options: templateOptions.nullish(),
});

const intParam = (field: string, min: number, max?: number) => {
  let n = z.coerce.number({ error: `${field} must be an integer` }).int(`${field} must be an integer`).min(min, `${field} must be at least ${min}`);
  if (max !== undefined) n = n.max(max, `${field} must be at most ${max}`);
  return n;
};

/** docs/api.md#pagination: page from 1, limit default 50, at most 100. */
export const paginationQuery = z.object({
  page: intParam('page', 1).default(1),
  limit: intParam('limit', 1, 100).default(50),
});
export type Pagination = z.infer<typeof paginationQuery>;

export const listTemplatesQuery = paginationQuery.extend({ projectId: uuid('projectId').optional() });

export const idParams = z.object({ id: uuid('id') });
export const projectParams = z.object({ projectId: uuid('projectId') });
export const projectQuery = z.object({ projectId: uuid('projectId').optional() });

/** As for sends: a preview renders every variable into the answer, so its input is bounded too. */
export const PREVIEW_VARIABLES_MAX_BYTES = 64 * 1024;

export const previewBody = z.object({
  templateId: uuid('templateId'),
  projectId: uuid('projectId').optional(),
  variables: z
    .record(z.string(), z.unknown(), { error: 'variables must be an object of names to values' })
    .refine((v) => Buffer.byteLength(JSON.stringify(v), 'utf8') <= PREVIEW_VARIABLES_MAX_BYTES, `variables must be at most ${PREVIEW_VARIABLES_MAX_BYTES} bytes as JSON`)
    .optional(),
});

export const importQuery = z.object({
  mode: z.enum(['skip', 'overwrite'], { error: 'mode must be skip or overwrite' }).default('skip'),
});
export type ImportMode = z.infer<typeof importQuery>['mode'];

/** An export file: only the templates' names and content are read; ids and projectIds are ignored. */
export const importFile = z.object(
  {
    templates: z
      .array(
        z.object(
          { name: templateName, title: templateTitle, body: templateBody, data: templateData.nullish(), options: templateOptions.nullish() },
          { error: 'each template must be an object' },
        ),
        { error: 'templates must be an array' },
      )
      .max(IMPORT_MAX_TEMPLATES, `an import holds at most ${IMPORT_MAX_TEMPLATES} templates`),
  },
  { error: 'the file must be a JSON object with a templates array' },
);

export const templateResponse = z.object({
  id: z.uuid(),
  projectId: z.uuid(),
  name: z.string(),
  title: z.string(),
  body: z.string(),
  data: z.record(z.string(), z.unknown()),
  options: z.record(z.string(), z.unknown()).optional().describe('Default options of its sends; absent when it has none'),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
});

export const templatePageResponse = z.object({
  data: z.array(templateResponse),
  meta: z.object({ page: z.number().int(), limit: z.number().int(), total: z.number().int(), totalPages: z.number().int() }),
});

export const variablesResponse = z.object({ variables: z.array(z.string()) });

export const previewResponse = z.object({
  title: z.string(),
  body: z.string(),
  data: z.record(z.string(), z.unknown()),
  missingVariables: z.array(z.string()),
});

export const exportResponse = z.object({
  templates: z.array(templateResponse),
  exportedAt: z.iso.datetime(),
  projectId: z.uuid(),
  projectName: z.string(),
  totalTemplates: z.number().int(),
});

export const importResponse = z.object({
  imported: z.number().int(),
  updated: z.number().int(),
  skipped: z.number().int(),
  templates: z.array(templateResponse),
});

export const messageResponse = z.object({ message: z.string() });
