import { AppError, deliveryHours, timingOf, type AudienceFilter, type Timing } from '@herald/core';
import { ProjectReads } from '@herald/project-state';
import { audienceCountStatement, audienceSelectStatement, audienceWhere, auditChanges, isUniqueViolation, sqlPool, toAudienceCount, writeAudit, type AuditSource, type Db, type Segment } from '@herald/db';
import type { Audience } from './audiences.schema';

export const SEGMENT_NOT_FOUND = 'Segment not found';
const NAME_TAKEN = 'A segment with this name already exists in this project';

const toSegment = (s: Segment) => ({
  id: s.id,
  projectId: s.projectId,
  name: s.name,
  description: s.description,
  filter: s.filter as unknown as AudienceFilter,
  createdAt: s.createdAt.toISOString(),
  updatedAt: s.updatedAt.toISOString(),
});

/** An audience with its filter (none: every device of the project), and what a broadcast records of it. */
export interface ResolvedAudience {
  recorded: Record<string, unknown>;
  filter?: AudienceFilter;
  path: string;
}

interface SegmentInput {
  name?: string;
  description?: string | null;
  filter?: AudienceFilter;
}

/**
 * Segments — a project's saved filters — and audience counts. Every query is scoped by the project:
 * another project's segment id is a 404 like an unknown one.
 */
/** A segment's fields as the audit log records them. */
const SEGMENT_AUDITED = ['name', 'description', 'filter'] as const;

export class AudiencesService {
  constructor(private readonly db: Db) {}

  async create(projectId: string, input: Required<Pick<SegmentInput, 'name' | 'filter'>> & SegmentInput, source: AuditSource) {
    const row = await this.db
      .$transaction(async (tx) => {
        const created = await tx.segment.create({ data: { projectId, name: input.name, description: input.description ?? null, filter: input.filter as object } });
        await writeAudit(tx, source, { projectId, action: 'segment.created', target: { type: 'segment', id: created.id }, changes: auditChanges(null, created, SEGMENT_AUDITED) });
        return created;
      })
      .catch(this.nameTaken);
    return toSegment(row);
  }

  async list(projectId: string) {
    const rows = await this.db.segment.findMany({ where: { projectId }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
    return rows.map(toSegment);
  }

  async get(projectId: string, segmentId: string) {
    return toSegment(await this.find(projectId, segmentId));
  }

  async update(projectId: string, segmentId: string, input: SegmentInput, source: AuditSource) {
    const row = await this.db
      .$transaction(async (tx) => {
        await tx.$queryRaw`SELECT 1 FROM "Segment" WHERE "id" = ${segmentId}::uuid FOR UPDATE`;
        const before = await tx.segment.findFirst({ where: { id: segmentId, projectId } });
        if (!before) throw AppError.notFound(SEGMENT_NOT_FOUND);
        const after = await tx.segment.update({ where: { id: segmentId }, data: { name: input.name, description: input.description, filter: input.filter as object | undefined } });
        const changes = auditChanges(before, after, SEGMENT_AUDITED);
        if (Object.keys(changes).length) await writeAudit(tx, source, { projectId, action: 'segment.updated', target: { type: 'segment', id: segmentId }, changes });
        return after;
      })
      .catch(this.nameTaken);
    return toSegment(row);
  }

  async remove(projectId: string, segmentId: string, source: AuditSource) {
    await this.db.$transaction(async (tx) => {
      const before = await tx.segment.findFirst({ where: { id: segmentId, projectId } });
      if (!before || !(await tx.segment.deleteMany({ where: { id: segmentId, projectId } })).count) throw AppError.notFound(SEGMENT_NOT_FOUND);
      await writeAudit(tx, source, { projectId, action: 'segment.deleted', target: { type: 'segment', id: segmentId }, changes: auditChanges(before, null, SEGMENT_AUDITED) });
    });
    return { message: 'Segment deleted' };
  }

  /**
   * The devices, users and devices per platform an audience holds now; with `deliverAt`, how many of
   * them a local-time send accepted now would reach in each hour (docs/delivery.md#local-time-and-quiet-hours).
   */
  async count(projectId: string, audience: Audience & { deliverAt?: { localTime: string }; ignoreQuietHours?: boolean }) {
    const resolved = await this.resolve(projectId, audience);
    const counted = await this.countOf(projectId, resolved);
    if (!audience.deliverAt) return counted;
    const timing = timingOf({ localTime: audience.deliverAt.localTime, exempt: audience.ignoreQuietHours === true }, await new ProjectReads(sqlPool(this.db)).settings(projectId))!;
    return { ...counted, deliveryHours: await this.deliveryHoursOf(projectId, resolved, timing) };
  }

  /** A broadcast's dry run: what the audience holds now, and with a local time, the devices in each delivery hour. */
  async dryRunOf(projectId: string, audience: ResolvedAudience, timing: Timing | null) {
    const counted = await this.countOf(projectId, audience);
    return { audience: counted, ...(timing?.localTime ? { deliveryHours: await this.deliveryHoursOf(projectId, audience, timing) } : {}) };
  }

  /** How many of an audience's devices a send with `timing` accepted now reaches in each hour. */
  private async deliveryHoursOf(projectId: string, resolved: ResolvedAudience, timing: Timing) {
    // Devices per zone: the time arithmetic runs once per zone, not per device.
    const select = audienceSelectStatement(projectId, resolved.filter, { path: resolved.path, columns: ['timezone'] });
    const zones = await sqlPool(this.db).query<{ zone: string | null; devices: number }>({
      text: `SELECT s."timezone" AS "zone", count(*)::int AS "devices" FROM (${select.text}) s GROUP BY 1`,
      values: select.values,
    });
    return deliveryHours(timing, zones.rows, Date.now());
  }

  /**
   * An audience as a broadcast records it: a segment's filter is copied in (editing the segment later
   * does not change a broadcast under way). A filter Postgres could not be given is a 400 here.
   */
  async resolve(projectId: string, audience: Audience): Promise<ResolvedAudience> {
    if (audience.segmentId) {
      const filter = (await this.find(projectId, audience.segmentId)).filter as unknown as AudienceFilter;
      audienceWhere(projectId, filter, { path: 'segment.filter' });
      return { recorded: { segmentId: audience.segmentId, filter }, filter, path: 'segment.filter' };
    }
    if (audience.filter) {
      audienceWhere(projectId, audience.filter, { path: 'audience.filter' });
      return { recorded: { filter: audience.filter }, filter: audience.filter, path: 'filter' };
    }
    return { recorded: { all: true }, path: 'filter' };
  }

  async countOf(projectId: string, audience: ResolvedAudience) {
    const { rows } = await sqlPool(this.db).query(audienceCountStatement(projectId, audience.filter, { path: audience.path }));
    return toAudienceCount(rows[0]);
  }

  private async find(projectId: string, segmentId: string) {
    const row = await this.db.segment.findFirst({ where: { id: segmentId, projectId } });
    if (!row) throw AppError.notFound(SEGMENT_NOT_FOUND);
    return row;
  }

  private nameTaken = (err: unknown): never => {
    if (isUniqueViolation(err)) throw AppError.conflict(NAME_TAKEN);
    throw err;
  };
}
