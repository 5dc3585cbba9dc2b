import { createHash } from 'node:crypto';
import type { RolloutView } from '@herald/schemas';

/**
 * A staged rollout's stages (docs/audiences.md#staged-rollout). Each device of a broadcast falls in a
 * bucket from 0 to just under 100: the first 32 bits of md5("<notification id>:<device id>") scaled.
 * Random across devices, the same for a device every time it is computed (in the worker's SQL or
 * here), and different for every broadcast, so that the same devices are not always the first.
 */
const TWO_TO_32 = 4_294_967_296;

/** A device's bucket in a broadcast, from 0 to just under 100. */
export function rolloutBucket(notificationId: string, deviceId: string): number {
  const head = createHash('md5').update(`${notificationId}:${deviceId}`).digest().readUInt32BE(0);
  return (head * 100) / TWO_TO_32;
}

/** The same bucket in SQL, over two uuid expressions (the same double-precision steps as `rolloutBucket`). */
export const rolloutBucketSql = (notificationId: string, deviceId: string) =>
  `((('x' || substr(md5(${notificationId}::text || ':' || ${deviceId}::text), 1, 8))::bit(32)::bigint)::float8 * 100 / ${TWO_TO_32})`;

/** The stage of a bucket: stage k holds the buckets from stages[k-1] (0 for the first) up to, not including, stages[k]. */
export function rolloutStageOf(stages: readonly number[], bucket: number): number {
  return stages.filter((s) => s <= bucket).length;
}

/** The same stage in SQL: `stages` is a float8[] expression. */
export const rolloutStageSql = (stages: string, notificationId: string, deviceId: string) =>
  `(SELECT count(*) FROM unnest(${stages}) AS s WHERE s <= ${rolloutBucketSql(notificationId, deviceId)})::smallint`;

export type { RolloutStageFigures, RolloutView } from '@herald/schemas';

/** A rollout as the API and webhooks show it, from the row's (which also holds the worker's own bookkeeping). */
export function rolloutViewOf(stored: unknown): RolloutView {
  const r = stored as Partial<RolloutView> & { stages: number[] };
  return {
    stages: r.stages,
    waitSeconds: r.waitSeconds ?? 0,
    haltWhen: r.haltWhen ?? {},
    currentStage: r.currentStage ?? 0,
    stageFigures: r.stageFigures ?? [],
    haltedAt: r.haltedAt ?? null,
    haltReason: r.haltReason ?? null,
  };
}
