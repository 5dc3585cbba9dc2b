import { createTemplateBody, updateTemplateBody } from '@herald/schemas';
import { useEffect, useMemo, useRef, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { exportTemplates, useCreateTemplate, useDeleteTemplate, useImportTemplates, usePreview, useTemplate, useTemplates, useUpdateTemplate, type Schemas } from '../api/hooks';
import { useProjectContext } from '../components/layout';
import { Button, Card, type Column, ConfirmButton, DataTable, EmptyState, ErrorNotice, FileField, Form, formatDate, FormDialog, Loading, Notice, PageHeader, Pagination, TextArea, TextField } from '../components/ui';
import { fileSlug, saveFile } from '../lib/download';
import { useSchemaCheck } from '../lib/schema-form';
import { useDebounced } from '../lib/use-debounced';
import { detectVariables, nestVariables } from '../lib/variables';

export function TemplatesPage() {
  const { projectId, project } = useProjectContext();
  const [page, setPage] = useState(1);
  const templates = useTemplates(projectId, page);
  const [exportError, setExportError] = useState<unknown>(null);
  const download = async () => {
    setExportError(null);
    try {
      const file = await exportTemplates(projectId);
      saveFile(`herald-templates-${fileSlug(project.name)}.json`, JSON.stringify(file, null, 2), 'application/json');
    } catch (e) {
      setExportError(e);
    }
  };
  const newLink = (
    <Link className="btn btn-primary" to={`/p/${projectId}/templates/new`}>
      New template
    </Link>
  );
  const columns: Column<Schemas['Template']>[] = [
    { header: 'Name', cell: (t) => <Link className="cell-main" to={`/p/${projectId}/templates/${t.id}`}>{t.name}</Link> },
    { header: 'Title', className: 'truncate', cell: (t) => t.title },
    { header: 'Updated', hideOnPhone: true, className: 'muted', cell: (t) => formatDate(t.updatedAt) },
    { header: 'Engagement', hideOnPhone: true, cell: (t) => <Link to={`/p/${projectId}/templates/${t.id}/engagement`} title={`Engagement of ${t.name}`}>Trend</Link> },
  ];
  return (
    <>
      <PageHeader
        title="Templates"
        description={<>The title and body of your notifications, with <code>{'{{variables}}'}</code> filled in at send time.</>}
        actions={
          <>
            <Button onClick={download}>Export</Button>
            <ImportTemplates projectId={projectId} />
            {newLink}
          </>
        }
      />
      <ErrorNotice error={exportError} />
      <Card bodyless>
        <DataTable
          label="Templates"
          columns={columns}
          rows={templates.data?.data}
          rowKey={(t) => t.id}
          loading={templates.isLoading}
          error={templates.error}
          footer={templates.data && <Pagination page={page} totalPages={templates.data.meta.totalPages} total={templates.data.meta.total} onPage={setPage} noun="templates" />}
          empty={
            <EmptyState title="No templates yet" action={newLink}>
              Create a template to send your first notification, or import the export file of another project.
            </EmptyState>
          }
        />
      </Card>
    </>
  );
}

function ImportTemplates({ projectId }: { projectId: string }) {
  const [file, setFile] = useState<File | null>(null);
  const [mode, setMode] = useState<'skip' | 'overwrite'>('skip');
  const run = useImportTemplates(projectId);
  return (
    <FormDialog
      trigger="Import"
      triggerVariant="secondary"
      title="Import templates"
      description="Upload a file exported from a Herald project. Its ids are ignored: templates are matched by name."
      submitLabel="Import"
      request={run}
      canSubmit={!!file}
      onSubmit={() => file && run.mutate({ file, mode })}
      onClose={() => setFile(null)}
      result={
        run.data &&
        ((close) => (
          <div className="stack">
            <Notice kind="success">
              {run.data.imported} imported, {run.data.updated} updated, {run.data.skipped} skipped.
            </Notice>
            <div className="dialog-actions">
              <Button variant="primary" onClick={close}>Done</Button>
            </div>
          </div>
        ))
      }
    >
      <FileField label="Export file (.json)" accept="application/json,.json" required onChange={(e) => setFile(e.target.files?.[0] ?? null)} />
      <fieldset>
        <legend>When a template with the same name exists</legend>
        <div className="radio-row">
          <label><input type="radio" name="mode" checked={mode === 'skip'} onChange={() => setMode('skip')} /> Keep it (skip)</label>
          <label><input type="radio" name="mode" checked={mode === 'overwrite'} onChange={() => setMode('overwrite')} /> Replace it (overwrite)</label>
        </div>
      </fieldset>
    </FormDialog>
  );
}

interface Draft {
  name: string;
  title: string;
  body: string;
  data: string;
}
const draftOf = (t?: Schemas['Template']): Draft => ({ name: t?.name ?? '', title: t?.title ?? '', body: t?.body ?? '', data: t?.data && Object.keys(t.data).length ? JSON.stringify(t.data, null, 2) : '' });

function parseData(text: string): { ok: true; value?: Record<string, unknown> } | { ok: false; error: string } {
  if (!text.trim()) return { ok: true, value: undefined };
  try {
    const v = JSON.parse(text);
    if (!v || typeof v !== 'object' || Array.isArray(v)) return { ok: false, error: 'Data must be a JSON object, e.g. {"screen": "inbox"}.' };
    return { ok: true, value: v };
  } catch {
    return { ok: false, error: 'This is not valid JSON.' };
  }
}

export function TemplateEditorPage() {
  const { projectId } = useProjectContext();
  const { templateId } = useParams();
  const navigate = useNavigate();
  const template = useTemplate(projectId, templateId);
  const create = useCreateTemplate(projectId);
  const update = useUpdateTemplate(projectId, templateId ?? '');
  const remove = useDeleteTemplate(projectId);
  const [draft, setDraft] = useState<Draft>(draftOf());
  const loadedFor = useRef<string | undefined>(undefined);
  useEffect(() => {
    if (template.data && loadedFor.current !== template.data.id) {
      loadedFor.current = template.data.id;
      setDraft(draftOf(template.data));
    }
  }, [template.data]);
  const [samples, setSamples] = useState<Record<string, string>>({});
  const variables = useMemo(() => detectVariables(draft.title, draft.body), [draft.title, draft.body]);
  const data = parseData(draft.data);
  const saved = draftOf(template.data);
  const dirty = !templateId || JSON.stringify(saved) !== JSON.stringify(draft);
  const sampleVars = useDebounced(useMemo(() => nestVariables(Object.fromEntries(variables.map((v) => [v, samples[v] ?? '']))), [variables, samples]));
  const preview = usePreview(projectId, templateId, sampleVars);
  const save = templateId ? update : create;
  const content = { name: draft.name, title: draft.title, body: draft.body, data: data.ok ? (data.value ?? {}) : undefined };
  const checkCreate = useSchemaCheck(createTemplateBody, { projectId, ...content }, create.error);
  const checkUpdate = useSchemaCheck(updateTemplateBody, content, update.error);
  const { errors } = templateId ? checkUpdate : checkCreate;

  if (templateId && template.isLoading) return <Loading />;
  if (templateId && template.error) return <ErrorNotice error={template.error} />;

  const submit = () => {
    if (!data.ok) return;
    if (templateId) checkUpdate.submit((body) => update.mutate(body));
    else checkCreate.submit((body) => create.mutate(body, { onSuccess: (t) => navigate(`/p/${projectId}/templates/${t.id}`, { replace: true }) }));
  };
  const set = (k: keyof Draft) => (e: { target: { value: string } }) => setDraft({ ...draft, [k]: e.target.value });

  return (
    <>
      <PageHeader
        title={templateId ? draft.name || 'Template' : 'New template'}
        description={<Link to={`/p/${projectId}/templates`}>← All templates</Link>}
        actions={
          templateId && (
            <ConfirmButton
              label="Delete template"
              size={undefined}
              title="Delete this template?"
              description="Sends that name this template will be refused. Notifications already sent keep their history."
              confirmLabel="Delete template"
              onConfirm={() => remove.mutateAsync(templateId).then(() => navigate(`/p/${projectId}/templates`))}
            />
          )
        }
      />
      <div className="editor">
        <Card title="Content">
          <Form
            className="stack"
            onSubmit={() => {
              submit();
            }}
          >
            <TextField label="Name" required maxLength={200} hint="Unique in the project; your backend sends by the template's id." value={draft.name} onChange={set('name')} error={errors.name} />
            <TextField label="Title" required value={draft.title} onChange={set('title')} placeholder="Hello {{name}}" error={errors.title} />
            <TextArea label="Body" required rows={4} value={draft.body} onChange={set('body')} placeholder="You have {{count}} new messages" error={errors.body} />
            <TextArea label="Data (optional JSON object)" className="mono" rows={4} value={draft.data} onChange={set('data')} placeholder='{"screen": "inbox"}' error={data.ok ? errors.data : data.error} hint="Sent to the app with every notification of this template." />
            <div className="stack-sm">
              <span className="label">Variables</span>
              {variables.length ? (
                <div className="chips" aria-label="Detected variables">
                  {variables.map((v) => <span key={v} className="badge badge-info">{v}</span>)}
                </div>
              ) : (
                <span className="muted small">None yet: write {'{{name}}'} in the title or body.</span>
              )}
            </div>
            <ErrorNotice error={save.error} />
            {templateId && update.isSuccess && !dirty && <Notice kind="success">Saved.</Notice>}
            <div className="actions">
              <Button variant="primary" type="submit" disabled={save.isPending || !data.ok || !dirty}>
                {templateId ? 'Save changes' : 'Create template'}
              </Button>
            </div>
          </Form>
        </Card>
        <Card title="Preview" description={templateId ? 'Rendered by Herald with the sample values below.' : 'Create the template to preview it.'}>
          <div className="stack">
            {variables.map((v) => (
              <TextField key={v} label={`Sample value for ${v}`} value={samples[v] ?? ''} onChange={(e) => setSamples({ ...samples, [v]: e.target.value })} />
            ))}
            {templateId ? (
              <>
                {dirty && <Notice kind="warning">You have unsaved changes: the preview shows the saved template.</Notice>}
                {preview.error ? (
                  <ErrorNotice error={preview.error} />
                ) : preview.data ? (
                  <div className="phone-preview" aria-live="polite" data-testid="preview">
                    <div className="pv-app">Your app · now</div>
                    <div className="pv-title">{preview.data.title || <span className="muted">(empty title)</span>}</div>
                    <div className="pv-body">{preview.data.body}</div>
                    {preview.data.missingVariables.length > 0 && (
                      <p className="small" style={{ marginTop: 8, color: 'var(--warning)' }}>
                        Missing: {preview.data.missingVariables.join(', ')} (rendered empty; a send without them is refused).
                      </p>
                    )}
                  </div>
                ) : (
                  <Loading label="Rendering…" />
                )}
              </>
            ) : (
              <EmptyState title="No preview yet">Fill in the template and create it; the preview then follows your sample values.</EmptyState>
            )}
          </div>
        </Card>
      </div>
    </>
  );
}
