import { AppError, compileTemplate, mergePushOptions, readPushOptions, RenderTooLongError, TemplateRenderError, TemplateSyntaxError, validateTemplate, type CompiledTemplate, type PushOptions, type TemplateSource, type TemplateVariables } from '@herald/core';
import { auditChanges, isPrismaError, isUniqueViolation, Prisma, writeAudit, type AuditSource, type Db, type PushTemplate } from '@herald/db';
import { importFile, type ImportMode, type Pagination } from './templates.schema';

export const TEMPLATE_NOT_FOUND = 'Template not found';
export const PROJECT_ID_IMMUTABLE = 'projectId cannot be updated';
const NAME_TAKEN = 'A template with this name already exists in the project';

type TemplateData = Record<string, unknown>;

export interface TemplateInput {
  name: string;
  title: string;
  body: string;
  data?: TemplateData | null;
  options?: PushOptions | null;
}

export type TemplatePatch = Partial<TemplateInput>;

export const toTemplateResponse = (t: PushTemplate) => ({
  id: t.id,
  projectId: t.projectId,
  name: t.name,
  title: t.title,
  body: t.body,
  // Absent data is `{}` everywhere, so clients need not tell null from empty.
  data: (t.data ?? {}) as TemplateData,
  createdAt: t.createdAt.toISOString(),
  updatedAt: t.updatedAt.toISOString(),
  // Beyond the spec's fields: present only when the template has default options.
  ...(t.options ? { options: readPushOptions(t.options) } : {}),
});
export type TemplateResponse = ReturnType<typeof toTemplateResponse>;

/** A template that Handlebars refuses is a 400 with the parser's message, naming the field. */
function assertRenderable(title: string, body: string, where: { prefix: string; path: (field: string) => string } = { prefix: 'Invalid template ', path: (f) => f }) {
  try {
    validateTemplate(title, body);
  } catch (err) {
    if (!(err instanceof TemplateSyntaxError)) throw err;
    const path = where.path(err.field);
    throw AppError.badRequest(`${where.prefix}${path}: ${err.reason}`, [{ path, message: err.reason }]);
  }
}

/**
 * A stored template compiled and rendered with the given variables, within the render budget. A
 * template saved before today's limits that no longer compiles, or variables that cannot be
 * rendered (too much work, too much text, a value that is no text), are the caller's 400 — the same
 * answer at preview and at send, so that nothing is queued that the worker cannot render.
 */
export function renderWithin(source: TemplateSource, variables: TemplateVariables, options: { maxText?: number } = {}) {
  let template: CompiledTemplate;
  try {
    template = compileTemplate(source);
  } catch (err) {
    if (!(err instanceof TemplateSyntaxError)) throw err;
    throw AppError.badRequest(`The template cannot be rendered: ${err.reason}`, [{ path: err.field, message: err.reason }]);
  }
  try {
    return { template, rendered: template.render(variables, options) };
  } catch (err) {
    if (!(err instanceof TemplateRenderError) || err instanceof RenderTooLongError) throw err;
    throw AppError.badRequest(err.message, [{ path: 'variables', message: err.reason }]);
  }
}

const jsonData = (data: TemplateData | null | undefined) => (data ?? {}) as Prisma.InputJsonObject;
/** No options is SQL NULL; stored options are compact (no undefined fields, no empty blocks). */
const jsonOptions = (options: PushOptions | null | undefined) => {
  const compact = mergePushOptions(options);
  return Object.keys(compact).length ? (compact as Prisma.InputJsonObject) : Prisma.DbNull;
};

/** A template's fields as the audit log records them. */
const AUDITED = ['name', 'title', 'body', 'data', 'options'] as const;

export class TemplateService {
  constructor(private readonly db: Db) {}

  async create(projectId: string, input: TemplateInput, source: AuditSource) {
    assertRenderable(input.title, input.body);
    try {
      const row = await this.db.$transaction(async (tx) => {
        const created = await tx.pushTemplate.create({
          data: { projectId, name: input.name, title: input.title, body: input.body, data: jsonData(input.data), options: jsonOptions(input.options) },
        });
        await writeAudit(tx, source, { projectId, action: 'template.created', target: { type: 'template', id: created.id }, changes: auditChanges(null, created, AUDITED) });
        return created;
      });
      return toTemplateResponse(row);
    } catch (err) {
      if (isUniqueViolation(err)) throw AppError.conflict(NAME_TAKEN);
      throw err;
    }
  }

  /** The project a template belongs to, for the access check of routes addressed by template id only. */
  async projectOf(id: string): Promise<string | undefined> {
    const row = await this.db.pushTemplate.findUnique({ where: { id }, select: { projectId: true } });
    return row?.projectId;
  }

  private async find(projectId: string, id: string) {
    const row = await this.db.pushTemplate.findFirst({ where: { id, projectId } });
    if (!row) throw AppError.notFound(TEMPLATE_NOT_FOUND);
    return row;
  }

  async get(projectId: string, id: string) {
    return toTemplateResponse(await this.find(projectId, id));
  }

  /** A page of templates of one project, or of every project the user belongs to. Newest first. */
  async list(scope: { projectId: string } | { userId: string }, { page, limit }: Pagination) {
    const where: Prisma.PushTemplateWhereInput = 'projectId' in scope ? { projectId: scope.projectId } : { project: { members: { some: { userId: scope.userId } } } };
    const [total, rows] = await this.db.$transaction([
      this.db.pushTemplate.count({ where }),
      this.db.pushTemplate.findMany({ where, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], skip: (page - 1) * limit, take: limit }),
    ]);
    return { data: rows.map(toTemplateResponse), meta: { page, limit, total, totalPages: Math.ceil(total / limit) } };
  }

  async update(projectId: string, id: string, patch: TemplatePatch & { projectId?: unknown }, source: AuditSource) {
    const current = await this.find(projectId, id);
    // Its own id in any letter case is no change (ids are accepted in any case everywhere).
    const sameProject = typeof patch.projectId === 'string' && patch.projectId.toLowerCase() === current.projectId;
    if (patch.projectId !== undefined && !sameProject) throw AppError.badRequest(PROJECT_ID_IMMUTABLE, [{ path: 'projectId', message: PROJECT_ID_IMMUTABLE }]);
    const data: Prisma.PushTemplateUpdateInput = {};
    if (patch.name !== undefined) data.name = patch.name;
    if (patch.title !== undefined) data.title = patch.title;
    if (patch.body !== undefined) data.body = patch.body;
    if (patch.data !== undefined) data.data = jsonData(patch.data);
    if (patch.options !== undefined) data.options = jsonOptions(patch.options);
    if (!Object.keys(data).length) return toTemplateResponse(current);
    if (data.title !== undefined || data.body !== undefined) assertRenderable(patch.title ?? current.title, patch.body ?? current.body);
    try {
      const row = await this.db.$transaction(async (tx) => {
        // Read again under a row lock: the entry's `before` is what this update replaced.
        await tx.$queryRaw`SELECT 1 FROM "PushTemplate" WHERE "id" = ${id}::uuid FOR UPDATE`;
        const before = await tx.pushTemplate.findFirst({ where: { id, projectId } });
        if (!before) throw AppError.notFound(TEMPLATE_NOT_FOUND);
        const after = await tx.pushTemplate.update({ where: { id, projectId }, data });
        const changes = auditChanges(before, after, AUDITED);
        if (Object.keys(changes).length) await writeAudit(tx, source, { projectId, action: 'template.updated', target: { type: 'template', id }, changes });
        return after;
      });
      return toTemplateResponse(row);
    } catch (err) {
      if (isUniqueViolation(err)) throw AppError.conflict(NAME_TAKEN);
      if (isPrismaError(err, 'P2025')) throw AppError.notFound(TEMPLATE_NOT_FOUND);
      throw err;
    }
  }

  async delete(projectId: string, id: string, source: AuditSource) {
    await this.db.$transaction(async (tx) => {
      const deleted = await tx.pushTemplate.findFirst({ where: { id, projectId } });
      if (!deleted || !(await tx.pushTemplate.deleteMany({ where: { id, projectId } })).count) throw AppError.notFound(TEMPLATE_NOT_FOUND);
      await writeAudit(tx, source, { projectId, action: 'template.deleted', target: { type: 'template', id }, changes: auditChanges(deleted, null, AUDITED) });
    });
    return { message: 'Template deleted' };
  }

  async variables(projectId: string, id: string) {
    const row = await this.find(projectId, id);
    try {
      return { variables: compileTemplate(row).variables };
    } catch (err) {
      if (!(err instanceof TemplateSyntaxError)) throw err;
      throw AppError.badRequest(`The template cannot be read: ${err.reason}`, [{ path: err.field, message: err.reason }]);
    }
  }

  async preview(projectId: string, id: string, variables: TemplateVariables) {
    const row = await this.find(projectId, id);
    const { template, rendered } = renderWithin(row, variables);
    return { ...rendered, missingVariables: template.missing(variables) };
  }

  async export(project: { id: string; name: string }) {
    const rows = await this.db.pushTemplate.findMany({ where: { projectId: project.id }, orderBy: [{ createdAt: 'asc' }, { name: 'asc' }] });
    return {
      templates: rows.map(toTemplateResponse),
      exportedAt: new Date().toISOString(),
      projectId: project.id,
      projectName: project.name,
      totalTemplates: rows.length,
    };
  }

  /**
   * Imports an export file into a project. The whole file is checked first; then every write happens
   * in one transaction, so a file is imported entirely or not at all.
   */
  async import(projectId: string, file: unknown, mode: ImportMode, source: AuditSource) {
    const entries = await parseImport(file);
    const names = entries.map((e) => e.name);
    try {
      return await this.db.$transaction(
        async (tx) => {
          // skipDuplicates makes a name created concurrently count as existing instead of failing.
          const created = await tx.pushTemplate.createManyAndReturn({
            data: entries.map((e) => ({ projectId, name: e.name, title: e.title, body: e.body, data: jsonData(e.data), options: jsonOptions(e.options) })),
            skipDuplicates: true,
          });
          const createdNames = new Set(created.map((t) => t.name));
          const existing = entries.filter((e) => !createdNames.has(e.name));
          const updated: PushTemplate[] = [];
          if (mode === 'overwrite') {
            for (const e of existing) {
              updated.push(
                await tx.pushTemplate.update({
                  where: { projectId_name: { projectId, name: e.name } },
                  data: { title: e.title, body: e.body, data: jsonData(e.data), options: jsonOptions(e.options) },
                }),
              );
            }
          }
          if (created.length || updated.length) {
            await writeAudit(tx, source, {
              projectId,
              action: 'templates.imported',
              target: { type: 'template', id: null },
              changes: { created: { before: null, after: created.map((t) => t.name) }, updated: { before: null, after: updated.map((t) => t.name) }, mode: { before: null, after: mode } },
            });
          }
          const written = new Map([...created, ...updated].map((t) => [t.name, t]));
          return {
            imported: created.length,
            updated: updated.length,
            skipped: mode === 'overwrite' ? 0 : existing.length,
            templates: names.flatMap((n) => (written.has(n) ? [toTemplateResponse(written.get(n)!)] : [])),
          };
        },
        { timeout: 30_000, maxWait: 5_000 },
      );
    } catch (err) {
      // A template deleted by someone else between the insert and its overwrite.
      if (isPrismaError(err, 'P2025')) throw AppError.conflict('The project’s templates changed during the import; retry it');
      throw err;
    }
  }
}

/**
 * Checking a template costs up to a few milliseconds (a 4,000-character one is parsed and compiled),
 * and a file holds up to 1,000: the check gives the event loop back this often, so that other
 * requests (and /health) are served while a large import is checked.
 */
const IMPORT_CHECK_SLICE_MS = 10;
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Validates an export file entry by entry (shape, then template syntax), naming the first bad one. */
async function parseImport(file: unknown) {
  const parsed = importFile.safeParse(file);
  if (!parsed.success) throw AppError.invalid('import file', parsed.error);
  const seen = new Map<string, number>();
  let sliceStart = performance.now();
  for (const [i, entry] of parsed.data.templates.entries()) {
    if (performance.now() - sliceStart > IMPORT_CHECK_SLICE_MS) {
      await nextTurn();
      sliceStart = performance.now();
    }
    const first = seen.get(entry.name);
    if (first !== undefined) {
      const message = `duplicate name "${entry.name}" (also templates.${first}.name)`;
      throw AppError.badRequest(`Invalid import file: templates.${i}.name: ${message}`, [{ path: `templates.${i}.name`, message }]);
    }
    seen.set(entry.name, i);
    assertRenderable(entry.title, entry.body, { prefix: 'Invalid import file: ', path: (field) => `templates.${i}.${field}` });
  }
  return parsed.data.templates;
}
