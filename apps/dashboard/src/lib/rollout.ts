/**
 * The broadcast composer's staged rollout, as typed: the stages as a comma-separated list of
 * percentages of the audience, the wait after each stage in seconds, and the halt bounds as
 * percentages (the API takes rates from 0 to 1). A bound left empty is not sent.
 */
/** A broadcast's `rollout` as the API takes it. */
export interface Rollout {
  /** Percent of the audience reached by the end of each stage, ascending, the last 100. */
  stages: number[];
  waitSeconds: number;
  haltWhen: { failureRate?: number; invalidTokenRate?: number };
}

export interface RolloutForm {
  stages: string;
  waitSeconds: string;
  failurePercent: string;
  invalidTokenPercent: string;
}

export const DEFAULT_ROLLOUT: RolloutForm = { stages: '1, 10, 50, 100', waitSeconds: '300', failurePercent: '10', invalidTokenPercent: '20' };
export const MAX_STAGES = 10;
/** A day: a longer wait is better done as a second broadcast. */
export const MAX_WAIT_SECONDS = 86_400;

export type RolloutErrors = Partial<Record<keyof RolloutForm, string>>;

const isNumber = (text: string) => text.trim() !== '' && Number.isFinite(Number(text.trim()));

function stagesProblem(text: string): string | undefined {
  const items = text.split(',').map((s) => s.trim()).filter(Boolean);
  if (!items.length) return 'Give at least one stage, e.g. 1, 10, 50, 100';
  if (items.length > MAX_STAGES) return `At most ${MAX_STAGES} stages`;
  if (!items.every(isNumber)) return 'Stages are percentages separated by commas, e.g. 1, 10, 50, 100';
  const values = items.map(Number);
  if (values.some((v) => v <= 0 || v > 100)) return 'Each stage is a percentage above 0 and at most 100';
  if (values.some((v, i) => i > 0 && v <= values[i - 1])) return 'Stages must grow: each one larger than the one before';
  if (values[values.length - 1] !== 100) return 'The last stage must be 100, so that the whole audience is reached';
  return undefined;
}

function percentProblem(text: string): string | undefined {
  if (text.trim() === '') return undefined;
  if (!isNumber(text) || Number(text) < 0 || Number(text) > 100) return 'A percentage from 0 to 100 (or leave it empty)';
  return undefined;
}

/** What is wrong with each field, named in the form's words; empty when the rollout can be sent. */
export function rolloutErrors(form: RolloutForm): RolloutErrors {
  const errors: RolloutErrors = {};
  const stages = stagesProblem(form.stages);
  if (stages) errors.stages = stages;
  const wait = form.waitSeconds.trim();
  if (!/^\d+$/.test(wait) || Number(wait) > MAX_WAIT_SECONDS) errors.waitSeconds = `Whole seconds from 0 to ${MAX_WAIT_SECONDS}`;
  const failure = percentProblem(form.failurePercent);
  if (failure) errors.failurePercent = failure;
  const invalid = percentProblem(form.invalidTokenPercent);
  if (invalid) errors.invalidTokenPercent = invalid;
  return errors;
}

/** Percent to a rate, without binary noise: 12.5 % → 0.125. */
const rate = (percent: string) => Math.round(Number(percent.trim()) * 100) / 10_000;

/** The API's `rollout` of a valid form. */
export function formToRollout(form: RolloutForm): Rollout {
  const haltWhen: Rollout['haltWhen'] = {};
  if (form.failurePercent.trim() !== '') haltWhen.failureRate = rate(form.failurePercent);
  if (form.invalidTokenPercent.trim() !== '') haltWhen.invalidTokenRate = rate(form.invalidTokenPercent);
  return {
    stages: form.stages.split(',').map((s) => s.trim()).filter(Boolean).map(Number),
    waitSeconds: Number(form.waitSeconds.trim()),
    haltWhen,
  };
}
