import { AppError, type AudienceFilter } from '@herald/core';
import { audienceCountStatement, audienceWhere, isUniqueViolation, sqlPool, toAudienceCount, type Db, type Segment } from '@herald/db';
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
export class AudiencesService {
  constructor(private readonly db: Db) {}

  async create(projectId: string, input: Required<Pick<SegmentInput, 'name' | 'filter'>> & SegmentInput) {
    const row = await this.db.segment
      .create({ data: { projectId, name: input.name, description: input.description ?? null, filter: input.filter as object } })
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

  async update(projectId: string, segmentId: string, input: SegmentInput) {
    const { count } = await this.db.segment
      .updateMany({ where: { id: segmentId, projectId }, data: { name: input.name, description: input.description, filter: input.filter as object | undefined } })
      .catch(this.nameTaken);
    if (count === 0) throw AppError.notFound(SEGMENT_NOT_FOUND);
    return this.get(projectId, segmentId);
  }

  async remove(projectId: string, segmentId: string) {
    const { count } = await this.db.segment.deleteMany({ where: { id: segmentId, projectId } });
    if (count === 0) throw AppError.notFound(SEGMENT_NOT_FOUND);
    return { message: 'Segment deleted' };
  }

  /** The devices, users and devices per platform an audience holds now. */
  async count(projectId: string, audience: Audience) {
    return this.countOf(projectId, await this.resolve(projectId, audience));
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
