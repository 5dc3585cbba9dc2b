import { z } from 'zod';

/**
 * A broadcast's staged rollout (docs/audiences.md#staged-rollout): the audience reached a share at a
 * time, each stage's outcome weighed before the next starts.
 */
export const MAX_ROLLOUT_STAGES = 10;
/** A day: a longer wait is better done as a second broadcast. */
export const MAX_ROLLOUT_WAIT_SECONDS = 86_400;

const rate = (name: string) =>
  z
    .number({ error: `${name} must be a number` })
    .min(0, `${name} must be at least 0`)
    .max(1, `${name} must be at most 1`)
    .optional()
    .describe(`Halt when a stage's ${name === 'failureRate' ? 'failed / (sent + failed)' : 'invalid tokens / attempted'} is above this (0–1)`);

export const rolloutBody = z
  .object({
    stages: z
      .array(
        z
          .number({ error: 'each stage must be a number' })
          .gt(0, 'each stage must be above 0')
          .max(100, 'each stage must be at most 100'),
        { error: 'stages must be an array of percentages' },
      )
      .min(1, 'stages needs at least one stage')
      .max(MAX_ROLLOUT_STAGES, `stages has at most ${MAX_ROLLOUT_STAGES} stages`)
      .describe('Percent of the audience reached by the end of each stage, ascending, the last 100, e.g. [1, 10, 50, 100]'),
    waitSeconds: z
      .number({ error: 'waitSeconds must be a number' })
      .int('waitSeconds must be an integer')
      .min(0, 'waitSeconds must be at least 0')
      .max(MAX_ROLLOUT_WAIT_SECONDS, `waitSeconds must be at most ${MAX_ROLLOUT_WAIT_SECONDS}`)
      .default(0)
      .describe("Seconds to wait after a stage's last delivery before weighing it and going on"),
    haltWhen: z
      .strictObject({ failureRate: rate('failureRate'), invalidTokenRate: rate('invalidTokenRate') }, { error: 'haltWhen must be an object' })
      .default({})
      .describe('Bounds: a stage above either halts the broadcast'),
  }, { error: 'rollout must be an object' })
  .strict()
  .superRefine((r, ctx) => {
    r.stages.forEach((s, i) => {
      if (i > 0 && s <= r.stages[i - 1]) ctx.addIssue({ code: 'custom', path: ['stages', i], message: 'stages must be ascending: each one larger than the one before' });
    });
    if (r.stages.length && r.stages[r.stages.length - 1] !== 100) ctx.addIssue({ code: 'custom', path: ['stages', r.stages.length - 1], message: 'the last stage must be 100, so that the whole audience is reached' });
  })
  .describe('Send a stage at a time and halt by itself when a stage crosses a bound');
export type RolloutBody = z.infer<typeof rolloutBody>;

/** A finished stage's figures. */
export const rolloutStageFigures = z.object({
  percent: z.number(),
  devices: z.number().int(),
  sent: z.number().int(),
  failed: z.number().int(),
  invalidTokens: z.number().int(),
});
export type RolloutStageFigures = z.infer<typeof rolloutStageFigures>;

/** A rollout as `GET /push/notifications/{id}` shows it. */
export const rolloutView = z.object({
  stages: z.array(z.number()),
  waitSeconds: z.number().int(),
  haltWhen: z.object({ failureRate: z.number().optional(), invalidTokenRate: z.number().optional() }),
  currentStage: z.number().int().describe('0-based index of the stage being sent (or the last one weighed, when halted)'),
  stageFigures: z.array(rolloutStageFigures).describe('One entry per finished stage'),
  haltedAt: z.iso.datetime().nullable(),
  haltReason: z.string().nullable(),
});
export type RolloutView = z.infer<typeof rolloutView>;
