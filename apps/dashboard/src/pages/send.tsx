import { sendBody } from '@herald/schemas';
import { useState } from 'react';
import { Link } from 'react-router';
import { useSend, useTemplates } from '../api/hooks';
import { useProjectContext } from '../components/layout';
import { LocalTimeFields, NOW, timingFields } from '../components/local-time-fields';
import { TemplateSelect, useTemplateChoice, VariableFields } from '../components/template-fields';
import { Button, Card, EmptyState, ErrorNotice, Form, Loading, PageHeader, TextField } from '../components/ui';
import { useSchemaCheck } from '../lib/schema-form';
import { NotificationDetail } from './notifications';

export function SendPage() {
  const { projectId } = useProjectContext();
  const templates = useTemplates(projectId, 1, 100);
  const choice = useTemplateChoice(projectId);
  const [userId, setUserId] = useState('');
  const [imageUrl, setImageUrl] = useState('');
  const [timing, setTiming] = useState(NOW);
  const send = useSend(projectId);
  const request = { userId, templateId: choice.templateId, variables: choice.request, ...(imageUrl.trim() ? { imageUrl: imageUrl.trim() } : {}), ...timingFields(timing) };
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
            <Form
              className="stack"
              onSubmit={() => {
                submit((body) => send.mutate(body));
              }}
            >
              <div className="grid-2">
                <TemplateSelect choice={choice} templates={list} error={errors.templateId} onChange={() => send.reset()} />
                <TextField label="User id" required value={userId} onChange={(e) => setUserId(e.target.value)} error={errors.userId} hint="All of this user's registered devices receive it." />
              </div>
              <VariableFields choice={choice} />
              <TextField label="Image URL (optional)" type="url" value={imageUrl} onChange={(e) => setImageUrl(e.target.value)} error={errors.imageUrl} placeholder="https://…" />
              <LocalTimeFields projectId={projectId} value={timing} onChange={setTiming} errors={errors} />
              <ErrorNotice error={send.error} />
              <div>
                <Button variant="primary" type="submit" disabled={!choice.templateId || send.isPending}>
                  {send.isPending ? 'Sending…' : 'Send push'}
                </Button>
              </div>
            </Form>
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
