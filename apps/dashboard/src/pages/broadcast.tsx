import { broadcastBody, type Audience } from '@herald/schemas';
import { useMutation } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { countAudience, useBroadcast, useSegments, useTemplates, type AudienceCountRequest } from '../api/hooks';
import { AudienceCount, CountFigures, draftOf, FilterEditor, readDraft, type Draft } from '../components/filter-editor';
import { useProjectContext } from '../components/layout';
import { LocalTimeFields, NOW, timingFields, type Timing } from '../components/local-time-fields';
import { TemplateSelect, useTemplateChoice, VariableFields } from '../components/template-fields';
import { Button, Card, EmptyState, ErrorNotice, Form, formatDate, Loading, Notice, PageHeader, SelectField, TextField } from '../components/ui';
import { DEFAULT_ROLLOUT, formToRollout, MAX_STAGES, MAX_WAIT_SECONDS, rolloutErrors, type RolloutErrors, type RolloutForm } from '../lib/rollout';
import { useSchemaCheck } from '../lib/schema-form';

type AudienceMode = 'segment' | 'filter' | 'all';
const MODES: [AudienceMode, string][] = [
  ['segment', 'A saved segment'],
  ['filter', 'Devices that match a filter'],
  ['all', 'All devices'],
];

/** The audience the form stands for (a filter the checker refuses is sent as it is, for the 400 to name). */
function audienceOf(mode: AudienceMode, segmentId: string, draft: Draft): Audience {
  if (mode === 'segment') return { segmentId };
  if (mode === 'filter') return { filter: readDraft(draft).filter } as Audience;
  return { all: true };
}

/**
 * A broadcast: one template to every device of an audience, optionally at a local time and in stages
 * that halt by themselves. A dry run counts the audience first; once sent, the notification page
 * follows it.
 */
export function BroadcastPage() {
  const { projectId } = useProjectContext();
  const navigate = useNavigate();
  const templates = useTemplates(projectId, 1, 100);
  const segments = useSegments(projectId);
  const choice = useTemplateChoice(projectId);
  const [mode, setMode] = useState<AudienceMode>('segment');
  const [segmentId, setSegmentId] = useState('');
  const [draft, setDraft] = useState(() => draftOf());
  const [timing, setTiming] = useState<Timing>(NOW);
  const [staged, setStaged] = useState(false);
  const [rollout, setRollout] = useState<RolloutForm>(DEFAULT_ROLLOUT);
  const [validateOnly, setValidateOnly] = useState(false);
  const [submitted, setSubmitted] = useState(false);
  // One key per composed broadcast: sending again after a lost answer does not send it twice.
  const [idempotencyKey, setIdempotencyKey] = useState(() => crypto.randomUUID());
  const broadcast = useBroadcast(projectId);
  const radioName = useId();

  const audience = audienceOf(mode, segmentId, draft);
  const request = { templateId: choice.templateId, audience, variables: choice.request, ...timingFields(timing), ...(validateOnly ? { dryRun: true } : {}) };
  const check = useSchemaCheck(broadcastBody, request, broadcast.error);
  const rolloutProblems: RolloutErrors = staged ? rolloutErrors(rollout) : {};
  const countRequest: AudienceCountRequest = { ...audience, ...timingFields(timing) };
  const dryRun = useMutation({ mutationFn: (body: AudienceCountRequest) => countAudience(projectId, body) });
  const counted = dryRun.variables !== undefined && JSON.stringify(dryRun.variables) === JSON.stringify(countRequest);

  const send = () => {
    setSubmitted(true);
    const rolloutOk = Object.keys(rolloutProblems).length === 0;
    check.submit((body) => {
      if (!rolloutOk) return;
      broadcast.mutate(
        { body: { ...body, ...(staged ? { rollout: formToRollout(rollout) } : {}) }, idempotencyKey },
        {
          onSuccess: (res) => {
            setIdempotencyKey(crypto.randomUUID());
            void navigate(`/p/${projectId}/notifications/${res.notificationId}`);
          },
        },
      );
    });
  };

  if (templates.isLoading || segments.isLoading) return <Loading />;
  if (templates.error || segments.error) return <ErrorNotice error={templates.error ?? segments.error} />;
  const list = templates.data?.data ?? [];
  const saved = segments.data ?? [];
  const shownRollout = (field: keyof RolloutForm) => (submitted || rollout[field] !== DEFAULT_ROLLOUT[field] ? rolloutProblems[field] : undefined);
  return (
    <>
      <PageHeader
        title="Broadcast"
        description="Sends a template to every device of an audience — a saved segment, a filter or all devices — now or at a local time, at once or in stages that halt by themselves."
      />
      {!list.length ? (
        <Card>
          <EmptyState title="Create a template first" action={<Link to={`/p/${projectId}/templates/new`}>New template</Link>}>
            A broadcast is always sent from a template.
          </EmptyState>
        </Card>
      ) : (
        <Card>
          <Form
            className="stack broadcast-form"
            aria-label="Compose a broadcast"
            onSubmit={() => {
              send();
            }}
          >
            <TemplateSelect choice={choice} templates={list} error={check.errors.templateId} onChange={() => broadcast.reset()} />
            <VariableFields choice={choice} />

            <fieldset className="stack-sm">
              <legend>Audience</legend>
              <div className="radio-row">
                {MODES.map(([value, label]) => (
                  <label key={value}>
                    <input type="radio" name={radioName} checked={mode === value} onChange={() => setMode(value)} /> {label}
                  </label>
                ))}
              </div>
              {mode === 'segment' &&
                (saved.length ? (
                  <SelectField label="Segment" required value={segmentId} onChange={(e) => setSegmentId(e.target.value)} error={check.errors.audience}>
                    <option value="">Choose a segment…</option>
                    {saved.map((s) => (
                      <option key={s.id} value={s.id}>
                        {s.name}
                      </option>
                    ))}
                  </SelectField>
                ) : (
                  <Notice>
                    No segment is saved yet: build one on the <Link to={`/p/${projectId}/segments`}>segments page</Link>, or choose a filter here.
                  </Notice>
                ))}
              {mode === 'filter' && (
                <>
                  <FilterEditor draft={draft} onChange={setDraft} showErrors={submitted} error={check.errors.audience} />
                  <AudienceCount projectId={projectId} filter={readDraft(draft).valid ? readDraft(draft).filter : undefined} />
                </>
              )}
              {mode === 'all' && <p className="hint">Every registered device of the project, whoever its user.</p>}
            </fieldset>

            <LocalTimeFields projectId={projectId} value={timing} onChange={setTiming} errors={check.errors} />

            <fieldset className="stack-sm">
              <legend>Staged rollout</legend>
              <label className="check-row">
                <input type="checkbox" checked={staged} onChange={(e) => setStaged(e.target.checked)} /> Send in stages, and halt when a stage goes wrong
              </label>
              {staged && (
                <>
                  <div className="grid-2">
                    <TextField
                      label="Stages (% of the audience)"
                      value={rollout.stages}
                      onChange={(e) => setRollout({ ...rollout, stages: e.target.value })}
                      error={shownRollout('stages')}
                      hint={`Up to ${MAX_STAGES}, growing, the last 100: 1, 10, 50, 100 reaches 1 % first, then 10 %…`}
                    />
                    <TextField
                      label="Wait after each stage (seconds)"
                      inputMode="numeric"
                      value={rollout.waitSeconds}
                      onChange={(e) => setRollout({ ...rollout, waitSeconds: e.target.value })}
                      error={shownRollout('waitSeconds')}
                      hint={`0 to ${MAX_WAIT_SECONDS}: time for failures to show before the next stage`}
                    />
                    <TextField
                      label="Halt above this failure rate (%)"
                      inputMode="decimal"
                      value={rollout.failurePercent}
                      onChange={(e) => setRollout({ ...rollout, failurePercent: e.target.value })}
                      error={shownRollout('failurePercent')}
                      hint="Failed over attempted in the stage; empty: no bound"
                    />
                    <TextField
                      label="Halt above this invalid-token rate (%)"
                      inputMode="decimal"
                      value={rollout.invalidTokenPercent}
                      onChange={(e) => setRollout({ ...rollout, invalidTokenPercent: e.target.value })}
                      error={shownRollout('invalidTokenPercent')}
                      hint="Tokens FCM no longer knows, over attempted; empty: no bound"
                    />
                  </div>
                  {check.errors.rollout && <div className="field-error">{check.errors.rollout}</div>}
                  <p className="hint">Each stage&rsquo;s devices are chosen at random. A halted broadcast waits on its page for you to resume or cancel it.</p>
                </>
              )}
            </fieldset>

            <fieldset className="stack-sm">
              <legend>Validation</legend>
              <label className="check-row">
                <input type="checkbox" checked={validateOnly} onChange={(e) => setValidateOnly(e.target.checked)} /> Validate only: FCM checks every message, nothing is delivered
              </label>
            </fieldset>

            <section className="count-panel" aria-label="Dry run" aria-live="polite">
              <div className="row" style={{ justifyContent: 'space-between' }}>
                <span className="label">Dry run</span>
                <Button size="sm" onClick={() => dryRun.mutate(countRequest)} disabled={dryRun.isPending}>
                  {dryRun.isPending ? 'Counting…' : 'Count the audience'}
                </Button>
              </div>
              <DryRunResult result={dryRun.data} error={dryRun.error} stale={!counted} />
            </section>

            <ErrorNotice error={broadcast.error} />
            <div>
              <Button variant="primary" type="submit" disabled={broadcast.isPending}>
                {broadcast.isPending ? 'Sending…' : 'Send broadcast'}
              </Button>
            </div>
          </Form>
        </Card>
      )}
    </>
  );
}

type CountResult = Awaited<ReturnType<typeof countAudience>>;

/** The audience's count, and for a local-time send how many devices fall in each delivery hour. */
function DryRunResult({ result, error, stale }: { result?: CountResult; error: unknown; stale: boolean }) {
  if (error) return <ErrorNotice error={error} />;
  if (!result) return <span className="muted small">Counts the devices this broadcast would reach now, without sending anything.</span>;
  const hours = result.deliveryHours;
  return (
    <div className="stack-sm">
      {stale && <span className="small muted">The form changed since: count again to see the new audience.</span>}
      <CountFigures count={result} />
      {hours && (
        <>
          <span className="small">
            {hours.defaultZoneDevices.toLocaleString('en')} {hours.defaultZoneDevices === 1 ? 'device has' : 'devices have'} no time zone of their own and follow the project&rsquo;s default.
          </span>
          <table className="compact-table">
            <caption className="visually-hidden">Devices by delivery hour</caption>
            <thead>
              <tr>
                <th>Delivery hour (your time)</th>
                <th className="num">Devices</th>
              </tr>
            </thead>
            <tbody>
              {hours.hours.map((h) => (
                <tr key={h.hour}>
                  <td>{formatDate(h.hour)}</td>
                  <td className="num">{h.devices.toLocaleString('en')}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </div>
  );
}
