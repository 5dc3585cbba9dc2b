import { z } from 'zod';
import { jsonBytes, templateBody, templateData, templateName, templateOptions, templateTitle, uuid } from '@herald/schemas';

// The request bodies, which the dashboard validates with too, are defined in @herald/schemas.
export { createTemplateBody, updateTemplateBody } from '@herald/schemas';

export const IMPORT_MAX_BYTES = 1024 * 1024;
export const IMPORT_MAX_TEMPLATES = 1000;

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
    .refine((v) => jsonBytes(v) <= PREVIEW_VARIABLES_MAX_BYTES, `variables must be at most ${PREVIEW_VARIABLES_MAX_BYTES} bytes as JSON`)
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
