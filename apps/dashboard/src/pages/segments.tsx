import { createSegmentBody, updateSegmentBody } from '@herald/schemas';
import { useEffect, useState } from 'react';
import { AudienceCount, draftOf, FilterEditor, readDraft } from '../components/filter-editor';
import { useCreateSegment, useDeleteSegment, useSegments, useUpdateSegment, type Segment } from '../api/hooks';
import { useProjectContext } from '../components/layout';
import { Button, Card, type Column, ConfirmButton, DataTable, Dialog, EmptyState, ErrorNotice, formatDate, FormDialog, Notice, PageHeader, TextField } from '../components/ui';
import { useSchemaCheck } from '../lib/schema-form';
import { describeFilter } from '../lib/segment-filter';

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
