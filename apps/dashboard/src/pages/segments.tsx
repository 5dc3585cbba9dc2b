import { createSegmentBody, FILTER_LIMITS, filterProblems, updateSegmentBody } from '@herald/schemas';
import { useEffect, useId, useMemo, useState } from 'react';
import { useAudienceCount, useCreateSegment, useDeleteSegment, useSegments, useUpdateSegment, type Segment } from '../api/hooks';
import { useProjectContext } from '../components/layout';
import { Button, Card, type Column, ConfirmButton, DataTable, Dialog, EmptyState, ErrorNotice, formatDate, FormDialog, Notice, PageHeader, SelectField, TextArea, TextField } from '../components/ui';
import { useSchemaCheck } from '../lib/schema-form';
import {
  choices,
  describeFilter,
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

export function SegmentsPage() {
  const { projectId, isAdmin } = useProjectContext();
  const segments = useSegments(projectId);
  const remove = useDeleteSegment(projectId);
  const columns: Column<Segment>[] = [
    {
      header: 'Name',
      cell: (s) => (
        <>
          <div className="cell-main">{s.name}</div>
          {s.description && <div className="cell-sub">{s.description}</div>}
        </>
      ),
    },
    { header: 'Filter', cell: (s) => <code className="filter-summary" title={describeFilter(s.filter)}>{describeFilter(s.filter)}</code> },
    { header: 'Updated', hideOnPhone: true, className: 'muted', cell: (s) => formatDate(s.updatedAt) },
    {
      header: 'Actions',
      actions: true,
      cell: (s) =>
        isAdmin ? (
          <div className="actions">
            <SegmentDialog projectId={projectId} segment={s} />
            <ConfirmButton
              label="Delete"
              ariaLabel={`Delete segment ${s.name}`}
              title={`Delete ${s.name}?`}
              description="The segment's name and filter are removed. The devices it selected are not touched."
              confirmLabel="Delete segment"
              onConfirm={() => remove.mutateAsync(s.id)}
            />
          </div>
        ) : (
          <ViewSegment projectId={projectId} segment={s} />
        ),
    },
  ];
  return (
    <>
      <PageHeader
        title="Segments"
        description="Saved filters over your devices: platform, tags, time zone, locale, app version and activity. Each shows how many devices and users it selects right now."
        actions={isAdmin ? <SegmentDialog projectId={projectId} /> : undefined}
      />
      <div className="stack">
        {!isAdmin && <Notice>Only project admins can create, change or delete segments. You can open each one and see its count.</Notice>}
        <Card bodyless>
          <DataTable
            label="Segments"
            columns={columns}
            rows={segments.data}
            rowKey={(s) => s.id}
            loading={segments.isLoading}
            error={segments.error}
            notice={remove.error ? <ErrorNotice error={remove.error} /> : undefined}
            empty={
              <EmptyState title="No segments yet" action={isAdmin ? <SegmentDialog projectId={projectId} /> : undefined}>
                A segment is a filter saved under a name, e.g. &ldquo;iOS users on the pro plan seen this month&rdquo;.
              </EmptyState>
            }
          />
        </Card>
      </div>
    </>
  );
}

// --- The filter editor ---------------------------------------------------------------------------

interface Draft {
  mode: 'form' | 'json';
  form: FilterForm;
  json: string;
  /** Why the form is not available (a filter it cannot show, JSON it cannot read). */
  note?: string;
}
const emptyForm = (): FilterForm => ({ match: 'and', negate: false, rows: [newRow()] });
const pretty = (filter: unknown) => JSON.stringify(filter, null, 2);
const CANNOT_SHOW = 'The form cannot show this filter (it nests and, or and not, or holds values the form cannot type): edit it as JSON.';

function draftOf(filter?: unknown): Draft {
  if (filter === undefined) return { mode: 'form', form: emptyForm(), json: '' };
  const form = filterToForm(filter);
  return form ? { mode: 'form', form, json: pretty(filter) } : { mode: 'json', form: emptyForm(), json: pretty(filter), note: CANNOT_SHOW };
}

/** The filter a draft stands for, and whether it is one the API accepts (checked with the API's checker). */
function readDraft(draft: Draft): { filter: unknown; valid: boolean; jsonError?: string } {
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

function FilterEditor({ draft, onChange, showErrors, error, readOnly }: { draft: Draft; onChange: (d: Draft) => void; showErrors: boolean; error?: string; readOnly?: boolean }) {
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
function AudienceCount({ projectId, filter }: { projectId: string; filter: unknown }) {
  const settled = useDebounced(filter === undefined ? '' : JSON.stringify(filter), 500);
  const audience = useMemo(() => (settled ? { filter: JSON.parse(settled) } : undefined), [settled]);
  const count = useAudienceCount(projectId, audience);
  const pending = filter === undefined ? false : JSON.stringify(filter) !== settled || count.isFetching;
  let body;
  if (filter === undefined) body = <span className="muted">Complete the filter to see how many devices it selects.</span>;
  else if (count.error) body = <ErrorNotice error={count.error} />;
  else if (!count.data) body = <span className="muted">Counting…</span>;
  else
    body = (
      <div className="count-figures" data-testid="audience-count">
        <span>
          <strong>{count.data.devices.toLocaleString('en')}</strong> {count.data.devices === 1 ? 'device' : 'devices'}
        </span>
        <span>
          <strong>{count.data.users.toLocaleString('en')}</strong> {count.data.users === 1 ? 'user' : 'users'}
        </span>
        <span className="chips" aria-label="Devices by platform">
          {(['android', 'ios', 'web'] as const).map((p) => (
            <span key={p} className="badge">
              {p} {count.data.byPlatform[p].toLocaleString('en')}
            </span>
          ))}
        </span>
      </div>
    );
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

// --- Dialogs -------------------------------------------------------------------------------------

/** Create (no segment) or edit a segment: name, description, filter, with the filter's live count. */
function SegmentDialog({ projectId, segment }: { projectId: string; segment?: Segment }) {
  const create = useCreateSegment(projectId);
  const update = useUpdateSegment(projectId);
  const save = segment ? update : create;
  const [name, setName] = useState(segment?.name ?? '');
  const [description, setDescription] = useState(segment?.description ?? '');
  const [draft, setDraft] = useState(() => draftOf(segment?.filter));
  const [showErrors, setShowErrors] = useState(false);
  const read = readDraft(draft);
  const request = { name, description: description.trim() ? description : segment ? null : undefined, filter: read.filter };
  const checkCreate = useSchemaCheck(createSegmentBody, request, create.error);
  const checkUpdate = useSchemaCheck(updateSegmentBody, request, update.error);
  const check = segment ? checkUpdate : checkCreate;
  const reset = () => {
    setName(segment?.name ?? '');
    setDescription(segment?.description ?? '');
    setDraft(draftOf(segment?.filter));
    setShowErrors(false);
    check.reset();
  };
  // A saved change comes back as a new version of the segment: the next opening starts from it.
  useEffect(reset, [segment?.updatedAt]);
  const submit = (close: () => void) => {
    setShowErrors(true);
    if (segment) checkUpdate.submit((body) => update.mutate({ segmentId: segment.id, body }, { onSuccess: close }));
    else checkCreate.submit((body) => create.mutate(body, { onSuccess: close }));
  };
  const rowsShowErrors = draft.mode === 'form' && showErrors && !read.valid;
  return (
    <FormDialog
      trigger={segment ? 'Edit' : 'New segment'}
      triggerVariant={segment ? 'secondary' : 'primary'}
      triggerSize={segment ? 'sm' : undefined}
      triggerAriaLabel={segment ? `Edit segment ${segment.name}` : undefined}
      title={segment ? `Edit ${segment.name}` : 'New segment'}
      description="Devices that match the filter belong to the segment; it is evaluated each time it is used."
      wide
      submitLabel={segment ? 'Save segment' : 'Create segment'}
      request={save}
      form={{ reset }}
      onSubmit={submit}
    >
      <TextField label="Name" required maxLength={100} value={name} onChange={(e) => setName(e.target.value)} error={check.errors.name} />
      <TextField label="Description (optional)" maxLength={500} value={description} onChange={(e) => setDescription(e.target.value)} error={check.errors.description} />
      <FilterEditor draft={draft} onChange={setDraft} showErrors={showErrors} error={rowsShowErrors ? undefined : check.errors.filter} />
      <AudienceCount projectId={projectId} filter={read.valid ? read.filter : undefined} />
    </FormDialog>
  );
}

/** A member's view of a segment: its filter, read only, and its count. */
function ViewSegment({ projectId, segment }: { projectId: string; segment: Segment }) {
  const [open, setOpen] = useState(false);
  const [draft, setDraft] = useState(() => draftOf(segment.filter));
  return (
    <>
      <Button size="sm" aria-label={`View segment ${segment.name}`} onClick={() => setOpen(true)}>
        View
      </Button>
      <Dialog open={open} onOpenChange={setOpen} title={segment.name} description={segment.description ?? undefined} wide>
        <div className="stack">
          <FilterEditor draft={draft} onChange={setDraft} showErrors={false} readOnly />
          <AudienceCount projectId={projectId} filter={segment.filter} />
          <div className="dialog-actions">
            <Button variant="primary" onClick={() => setOpen(false)}>
              Close
            </Button>
          </div>
        </div>
      </Dialog>
    </>
  );
}
