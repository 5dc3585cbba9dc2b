import { updateSettingsBody } from '@herald/schemas';
import { useMemo, useState } from 'react';
import { useSettings, useUpdateSettings, type ProjectSettings } from '../api/hooks';
import { useProjectContext } from '../components/layout';
import { Button, Card, ErrorNotice, Form, formatDate, Loading, Notice, PageHeader, SelectField, TextField } from '../components/ui';
import { useSchemaCheck } from '../lib/schema-form';

/** The zones this browser knows, UTC first; the saved one is kept even if the browser does not know it. */
function zoneChoices(saved: string): string[] {
  const known = (Intl as unknown as { supportedValuesOf?: (key: 'timeZone') => string[] }).supportedValuesOf?.('timeZone') ?? [];
  return [...new Set(['UTC', saved, ...known])];
}

export function SettingsPage() {
  const { projectId, isAdmin } = useProjectContext();
  const settings = useSettings(projectId);
  // Kept above the form, which starts again from each saved version: its success outlives the form.
  const update = useUpdateSettings(projectId);
  return (
    <>
      <PageHeader title="Settings" description="How this project times its deliveries — the time zone of devices that have none, the hours in which nothing is delivered — and what its messages carry." />
      {settings.isLoading ? (
        <Loading />
      ) : settings.error ? (
        <ErrorNotice error={settings.error} />
      ) : (
        // Keyed by the saved version: a save (or another admin's, on reload) starts the form from it.
        <SettingsForm key={settings.data!.updatedAt ?? 'defaults'} saved={settings.data!} isAdmin={isAdmin} update={update} />
      )}
    </>
  );
}

function SettingsForm({ saved, isAdmin, update }: { saved: ProjectSettings; isAdmin: boolean; update: ReturnType<typeof useUpdateSettings> }) {
  const [timezone, setTimezone] = useState(saved.defaultTimezone);
  const [quiet, setQuiet] = useState(saved.quietHours !== null);
  const [start, setStart] = useState(saved.quietHours?.start ?? '22:00');
  const [end, setEnd] = useState(saved.quietHours?.end ?? '08:00');
  const [deliveryId, setDeliveryId] = useState(saved.deliveryIdInData);
  const zones = useMemo(() => zoneChoices(saved.defaultTimezone), [saved.defaultTimezone]);
  const request = { defaultTimezone: timezone, quietHours: quiet ? { start, end } : null, deliveryIdInData: deliveryId };
  const { errors, submit } = useSchemaCheck(updateSettingsBody, request, update.error);
  return (
    <div className="stack">
      {!isAdmin && <Notice>Only project admins can change the settings. You can see what they are.</Notice>}
      <Card>
        <Form
          className="stack narrow-form"
          aria-label="Project settings"
          onSubmit={() => {
            update.reset();
            submit((body) => update.mutate(body));
          }}
        >
          <fieldset className="stack" disabled={!isAdmin}>
            <SelectField
              label="Default time zone"
              value={timezone}
              onChange={(e) => setTimezone(e.target.value)}
              error={errors.defaultTimezone}
              hint="Local-time deliveries and quiet hours use it for devices that registered without a time zone."
            >
              {zones.map((z) => (
                <option key={z} value={z}>
                  {z.replace(/_/g, ' ')}
                </option>
              ))}
            </SelectField>
            <fieldset className="stack-sm">
              <legend>Quiet hours</legend>
              <label className="check-row">
                <input type="checkbox" checked={quiet} onChange={(e) => setQuiet(e.target.checked)} /> Hold deliveries during quiet hours
              </label>
              {quiet && (
                <div className="grid-2">
                  <TextField label="Quiet hours start" type="time" required value={start} onChange={(e) => setStart(e.target.value)} />
                  <TextField label="Quiet hours end" type="time" required value={end} onChange={(e) => setEnd(e.target.value)} error={errors.quietHours} />
                </div>
              )}
              <span className="hint">
                In each device&rsquo;s own time; a window from 22:00 to 08:00 runs past midnight. A delivery that would land inside is held until the window ends. High-priority sends, and sends
                that ask to ignore quiet hours, go through.
              </span>
            </fieldset>
            <fieldset className="stack-sm">
              <legend>Engagement</legend>
              <label className="check-row">
                <input type="checkbox" checked={deliveryId} onChange={(e) => setDeliveryId(e.target.checked)} />
                {/* One inline run: the row lays out its children side by side, and the code would stand apart. */}
                <span>
                  Put each delivery&rsquo;s id in its message, as <code>herald_delivery_id</code>
                </span>
              </label>
              <span className="hint">
                Apps read it from a received message and report what happened to it (received, opened, clicked) through your backend. Off, messages carry no id of Herald&rsquo;s.
              </span>
            </fieldset>
          </fieldset>
          <ErrorNotice error={update.error} />
          {update.isSuccess && <Notice kind="success">Settings saved.</Notice>}
          {isAdmin && (
            <div className="row">
              <Button variant="primary" type="submit" disabled={update.isPending}>
                {update.isPending ? 'Saving…' : 'Save settings'}
              </Button>
              <span className="small muted">{saved.updatedAt ? `Last saved ${formatDate(saved.updatedAt)}` : 'The defaults apply until you save.'}</span>
            </div>
          )}
        </Form>
      </Card>
    </div>
  );
}
