import { FILTER_LIMITS, filterProblems } from '@herald/schemas';
import { useId, useMemo } from 'react';
import { useAudienceCount, type AudienceCount as Count } from '../api/hooks';
import {
  choices,
  FIELD_LABELS,
  filterToForm,
  formErrors,
  formToFilter,
  KIND_LABELS,
  kindsOf,
  needsValue,
  newRow,
  opLabel,
  opsOf,
  ROW_FIELDS,
  rowErrors,
  withField,
  type FilterForm,
  type FilterRow,
  type RowField,
  type RowOp,
  type ValueKind,
} from '../lib/segment-filter';
import { useDebounced } from '../lib/use-debounced';
import { Button, ErrorNotice, Notice, SelectField, TextArea, TextField } from './ui';

/**
 * The audience filter editor (a form of conditions, or JSON) and the live count of a filter: the
 * segments page and the broadcast composer build filters with them.
 */

export interface Draft {
  mode: 'form' | 'json';
  form: FilterForm;
  json: string;
  /** Why the form is not available (a filter it cannot show, JSON it cannot read). */
  note?: string;
}
const emptyForm = (): FilterForm => ({ match: 'and', negate: false, rows: [newRow()] });
const pretty = (filter: unknown) => JSON.stringify(filter, null, 2);
const CANNOT_SHOW = 'The form cannot show this filter (it nests and, or and not, or holds values the form cannot type): edit it as JSON.';

export function draftOf(filter?: unknown): Draft {
  if (filter === undefined) return { mode: 'form', form: emptyForm(), json: '' };
  const form = filterToForm(filter);
  return form ? { mode: 'form', form, json: pretty(filter) } : { mode: 'json', form: emptyForm(), json: pretty(filter), note: CANNOT_SHOW };
}

/** The filter a draft stands for, and whether it is one the API accepts (checked with the API's checker). */
export function readDraft(draft: Draft): { filter: unknown; valid: boolean; jsonError?: string } {
  if (draft.mode === 'form') {
    const filter = draft.form.rows.length ? formToFilter(draft.form) : undefined;
    const valid = !formErrors(draft.form) && draft.form.rows.every((r) => Object.keys(rowErrors(r)).length === 0);
    return { filter, valid: valid && filterProblems(filter).length === 0 };
  }
  try {
    const filter: unknown = JSON.parse(draft.json);
    const problems = filterProblems(filter);
    const first = problems[0] && `${['filter', ...problems[0].path].join('.')}: ${problems[0].message}${problems.length > 1 ? ` (and ${problems.length - 1} more)` : ''}`;
    return { filter, valid: problems.length === 0, jsonError: first };
  } catch {
    return { filter: undefined, valid: false, jsonError: 'This is not valid JSON.' };
  }
}

export function FilterEditor({ draft, onChange, showErrors, error, readOnly }: { draft: Draft; onChange: (d: Draft) => void; showErrors: boolean; error?: string; readOnly?: boolean }) {
  const id = useId();
  const { form } = draft;
  const setForm = (next: Partial<FilterForm>) => onChange({ ...draft, form: { ...form, ...next } });
  const setRow = (i: number, row: FilterRow) => setForm({ rows: form.rows.map((r, j) => (j === i ? row : r)) });
  const toJson = () => onChange({ ...draft, mode: 'json', note: undefined, json: pretty(formToFilter(form)) });
  const toForm = () => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(draft.json);
    } catch {
      return onChange({ ...draft, note: 'Fix the JSON first: the form shows only a filter it can read.' });
    }
    const next = filterToForm(parsed);
    onChange(next ? { ...draft, mode: 'form', form: next, note: undefined } : { ...draft, note: CANNOT_SHOW });
  };
  const { jsonError } = readDraft(draft);
  return (
    <div className="stack-sm">
      <div className="row" style={{ justifyContent: 'space-between' }}>
        <span className="label">Filter</span>
        <div className="segmented" role="group" aria-label="Edit the filter as">
          <button type="button" aria-pressed={draft.mode === 'form'} onClick={() => draft.mode === 'json' && toForm()}>
            Form
          </button>
          <button type="button" aria-pressed={draft.mode === 'json'} onClick={() => draft.mode === 'form' && toJson()}>
            JSON
          </button>
        </div>
      </div>
      {draft.note && <Notice kind="warning">{draft.note}</Notice>}
      <fieldset className="stack-sm" disabled={readOnly} aria-label="Filter">
        {draft.mode === 'form' ? (
          <>
            <fieldset>
              <legend>Devices that match</legend>
              <div className="radio-row">
                <label>
                  <input type="radio" name={`${id}-match`} checked={form.match === 'and'} onChange={() => setForm({ match: 'and' })} /> All conditions (and)
                </label>
                <label>
                  <input type="radio" name={`${id}-match`} checked={form.match === 'or'} onChange={() => setForm({ match: 'or' })} /> Any condition (or)
                </label>
              </div>
            </fieldset>
            <label className="check-row">
              <input type="checkbox" checked={form.negate} onChange={(e) => setForm({ negate: e.target.checked })} /> Not: select the devices that do not match
            </label>
            {form.rows.map((row, i) => (
              <RowEditor key={i} index={i} row={row} showErrors={showErrors} onChange={(r) => setRow(i, r)} onRemove={!readOnly && form.rows.length > 1 ? () => setForm({ rows: form.rows.filter((_, j) => j !== i) }) : undefined} />
            ))}
            {!readOnly && (
              <div>
                <Button size="sm" disabled={form.rows.length >= FILTER_LIMITS.maxConditions} onClick={() => setForm({ rows: [...form.rows, newRow()] })}>
                  Add condition
                </Button>
              </div>
            )}
            {error && <div className="field-error" role="alert">{error}</div>}
          </>
        ) : (
          <TextArea
            label="Filter (JSON)"
            className="mono"
            rows={10}
            spellCheck={false}
            value={draft.json}
            onChange={(e) => onChange({ ...draft, json: e.target.value })}
            hint={<>A condition <code>{'{"field", "op", "value"}'}</code>, or <code>and</code>, <code>or</code>, <code>not</code> around filters (docs/audiences.md).</>}
            error={(showErrors || draft.json !== '') && jsonError ? jsonError : error}
          />
        )}
      </fieldset>
    </div>
  );
}

const PLACEHOLDERS: Partial<Record<RowField | ValueKind, string>> = {
  platform: 'ios',
  userId: 'user-42',
  timezone: 'Europe/Berlin',
  locale: 'en-US',
  appVersion: '2.14.1',
  string: 'pro',
  number: '5',
  relative: '30d',
  date: '2026-11-01',
};

function RowEditor({ index, row, showErrors, onChange, onRemove }: { index: number; row: FilterRow; showErrors: boolean; onChange: (r: FilterRow) => void; onRemove?: () => void }) {
  const errors = rowErrors(row);
  const list = row.op === 'in' || row.op === 'nin';
  const options = choices(row);
  const kinds = kindsOf(row.field);
  const placeholder = PLACEHOLDERS[row.field === 'tag' || kinds.length > 1 ? row.kind : row.field] ?? '';
  const hint = list ? 'Comma-separated' : row.kind === 'relative' ? 'm, h, d or w: 30d is 30 days ago' : undefined;
  const shown = (part: 'tagKey' | 'value', typed: string) => (showErrors || typed !== '' ? errors[part] : undefined);
  return (
    <fieldset className="filter-row">
      <legend className="small muted">Condition {index + 1}</legend>
      <div className="filter-row-fields">
        <SelectField label="Field" value={row.field} onChange={(e) => onChange(withField(row, e.target.value as RowField))}>
          {ROW_FIELDS.map((f) => (
            <option key={f} value={f}>
              {FIELD_LABELS[f]}
            </option>
          ))}
        </SelectField>
        {row.field === 'tag' && <TextField label="Tag key" placeholder="plan" value={row.tagKey} onChange={(e) => onChange({ ...row, tagKey: e.target.value })} error={shown('tagKey', row.tagKey)} />}
        <SelectField label="Operator" value={row.op} onChange={(e) => onChange({ ...row, op: e.target.value as RowOp })} error={errors.op}>
          {opsOf(row.field).map((op) => (
            <option key={op} value={op}>
              {opLabel(row.field, op)}
            </option>
          ))}
        </SelectField>
        {kinds.length > 1 && needsValue(row) && (
          <SelectField label="Value type" value={row.kind} onChange={(e) => onChange({ ...row, kind: e.target.value as ValueKind, value: '' })}>
            {kinds.map((k) => (
              <option key={k} value={k}>
                {KIND_LABELS[k]}
              </option>
            ))}
          </SelectField>
        )}
        {needsValue(row) &&
          (options ? (
            <SelectField label="Value" value={row.value} onChange={(e) => onChange({ ...row, value: e.target.value })} error={showErrors ? errors.value : undefined}>
              <option value="">Choose…</option>
              {options.map((o) => (
                <option key={o} value={o}>
                  {o}
                </option>
              ))}
            </SelectField>
          ) : (
            <TextField label="Value" placeholder={list ? `${placeholder}, …` : placeholder} hint={hint} value={row.value} onChange={(e) => onChange({ ...row, value: e.target.value })} error={shown('value', row.value)} />
          ))}
        {onRemove && (
          <div className="filter-row-remove">
            <Button size="sm" variant="ghost" className="btn-danger-text" aria-label={`Remove condition ${index + 1}`} onClick={onRemove}>
              Remove
            </Button>
          </div>
        )}
      </div>
    </fieldset>
  );
}

/** The live count of a filter: asked once typing pauses, and only for a filter the API accepts. */
export function AudienceCount({ projectId, filter }: { projectId: string; filter: unknown }) {
  const settled = useDebounced(filter === undefined ? '' : JSON.stringify(filter), 500);
  const audience = useMemo(() => (settled ? { filter: JSON.parse(settled) } : undefined), [settled]);
  const count = useAudienceCount(projectId, audience);
  const pending = filter === undefined ? false : JSON.stringify(filter) !== settled || count.isFetching;
  let body;
  if (filter === undefined) body = <span className="muted">Complete the filter to see how many devices it selects.</span>;
  else if (count.error) body = <ErrorNotice error={count.error} />;
  else if (!count.data) body = <span className="muted">Counting…</span>;
  else body = <CountFigures count={count.data} />;
  return (
    <section className="count-panel" aria-label="Audience count" aria-live="polite" aria-busy={pending}>
      <div className="row" style={{ justifyContent: 'space-between' }}>
        <span className="label">Matches now</span>
        {pending && count.data && <span className="small muted">Updating…</span>}
      </div>
      {body}
    </section>
  );
}

/** An audience's figures: devices, users and devices by platform. */
export function CountFigures({ count }: { count: Count }) {
  return (
    <div className="count-figures" data-testid="audience-count">
      <span>
        <strong>{count.devices.toLocaleString('en')}</strong> {count.devices === 1 ? 'device' : 'devices'}
      </span>
      <span>
        <strong>{count.users.toLocaleString('en')}</strong> {count.users === 1 ? 'user' : 'users'}
      </span>
      <span className="chips" aria-label="Devices by platform">
        {(['android', 'ios', 'web'] as const).map((p) => (
          <span key={p} className="badge">
            {p} {count.byPlatform[p].toLocaleString('en')}
          </span>
        ))}
      </span>
    </div>
  );
}
