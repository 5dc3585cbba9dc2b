import { sendBody } from '@herald/schemas';
import { useMemo, useState } from 'react';
import { Link } from 'react-router';
import { useSend, useTemplates, useTemplateVariables } from '../api/hooks';
import { useProjectContext } from '../components/layout';
import { Button, Card, EmptyState, ErrorNotice, Loading, PageHeader, SelectField, TextField } from '../components/ui';
import { useSchemaCheck } from '../lib/schema-form';
import { nestVariables } from '../lib/variables';
import { NotificationDetail } from './notifications';

export function SendPage() {
  const { projectId } = useProjectContext();
  const templates = useTemplates(projectId, 1, 100);
  const [templateId, setTemplateId] = useState('');
  const [userId, setUserId] = useState('');
  const [values, setValues] = useState<Record<string, string>>({});
  const [imageUrl, setImageUrl] = useState('');
  const variables = useTemplateVariables(projectId, templateId || undefined);
  const send = useSend(projectId);
  const names = useMemo(() => variables.data?.variables ?? [], [variables.data]);
  const request = { userId, templateId, variables: nestVariables(Object.fromEntries(names.map((n) => [n, values[n] ?? '']))), ...(imageUrl.trim() ? { imageUrl: imageUrl.trim() } : {}) };
  const { errors, submit } = useSchemaCheck(sendBody, request, send.error);

  if (templates.isLoading) return <Loading />;
  if (templates.error) return <ErrorNotice error={templates.error} />;
  const list = templates.data?.data ?? [];
  return (
    <>
      <PageHeader title="Send a test push" description="Sends a template to every registered device of one user, as your backend would, and follows it to its final status." />
      {!list.length ? (
        <Card>
          <EmptyState title="Create a template first" action={<Link to={`/p/${projectId}/templates/new`}>New template</Link>}>
            A push is always sent from a template.
          </EmptyState>
        </Card>
      ) : (
        <div className="stack">
          <Card>
            <form
              className="stack"
              noValidate
              onSubmit={(e) => {
                e.preventDefault();
                submit((body) => send.mutate(body));
              }}
            >
              <div className="grid-2">
                <SelectField label="Template" required error={errors.templateId} value={templateId} onChange={(e) => { setTemplateId(e.target.value); send.reset(); }}>
                  <option value="">Choose a template…</option>
                  {list.map((t) => (
                    <option key={t.id} value={t.id}>{t.name}</option>
                  ))}
                </SelectField>
                <TextField label="User id" required value={userId} onChange={(e) => setUserId(e.target.value)} error={errors.userId} hint="All of this user's registered devices receive it." />
              </div>
              {templateId && variables.isLoading && <Loading label="Reading the template's variables…" />}
              <ErrorNotice error={variables.error} />
              {names.length > 0 && (
                <fieldset className="stack-sm">
                  <legend>Variables</legend>
                  <div className="grid-2">
                    {names.map((n) => (
                      <TextField key={n} label={n} value={values[n] ?? ''} onChange={(e) => setValues({ ...values, [n]: e.target.value })} />
                    ))}
                  </div>
                </fieldset>
              )}
              <TextField label="Image URL (optional)" type="url" value={imageUrl} onChange={(e) => setImageUrl(e.target.value)} error={errors.imageUrl} placeholder="https://…" />
              <ErrorNotice error={send.error} />
              <div>
                <Button variant="primary" type="submit" disabled={!templateId || send.isPending}>
                  {send.isPending ? 'Sending…' : 'Send push'}
                </Button>
              </div>
            </form>
          </Card>
          {send.data && (
            <section aria-label="Sent notification" className="stack-sm">
              <div className="row" style={{ justifyContent: 'space-between' }}>
                <h2>Sent notification</h2>
                <Link className="btn btn-sm" to={`/p/${projectId}/notifications/${send.data.notificationId}`}>
                  Open in the log
                </Link>
              </div>
              <NotificationDetail projectId={projectId} notificationId={send.data.notificationId} />
            </section>
          )}
        </div>
      )}
    </>
  );
}
