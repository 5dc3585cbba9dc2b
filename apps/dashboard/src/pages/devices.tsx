import { customerUserId } from '@herald/schemas';
import { useState } from 'react';
import { z } from 'zod';
import { useDevices, useUnregisterDevice, type Schemas } from '../api/hooks';
import { useProjectContext } from '../components/layout';
import { Button, Card, type Column, ConfirmButton, DataTable, EmptyState, ErrorNotice, Form, formatDate, PageHeader, TextField } from '../components/ui';
import { useSchemaForm } from '../lib/schema-form';

/** The path parameter of `GET /push/devices/{userId}`. */
const lookup = z.object({ userId: customerUserId });

export function DevicesPage() {
  const { projectId } = useProjectContext();
  const [userId, setUserId] = useState('');
  const form = useSchemaForm(lookup, { userId: '' });
  const devices = useDevices(projectId, userId);
  const unregister = useUnregisterDevice(projectId, userId);
  const columns: Column<Schemas['Device']>[] = [
    {
      header: 'Platform',
      cell: (d) => (
        <>
          <span className="badge">{d.platform}</span> <span className="muted small">{d.provider}</span>
        </>
      ),
    },
    {
      header: 'Token',
      cell: (d) => (
        <code className="truncate" style={{ display: 'inline-block', verticalAlign: 'middle' }} title={d.deviceToken}>
          {d.deviceToken}
        </code>
      ),
    },
    { header: 'Last seen', hideOnPhone: true, className: 'muted', cell: (d) => formatDate(d.lastSeenAt) },
    { header: 'Registered', hideOnPhone: true, className: 'muted', cell: (d) => formatDate(d.createdAt) },
    {
      header: 'Actions',
      actions: true,
      cell: (d) => (
        <ConfirmButton
          label="Unregister"
          ariaLabel={`Unregister ${d.platform} device ${d.deviceToken.slice(0, 12)}`}
          title="Unregister this device?"
          description="It receives no more notifications until your backend registers its token again."
          confirmLabel="Unregister"
          onConfirm={() => unregister.mutateAsync(d.deviceToken)}
        />
      ),
    },
  ];
  return (
    <>
      <PageHeader title="Devices" description="Your backend registers each user's device tokens with an API key. Look up the devices of one of your users by their id." />
      <div className="stack">
        <Card>
          <Form
            className="row"
            style={{ alignItems: 'flex-end' }}
            onSubmit={() => {
              form.submit((query) => setUserId(query.userId));
            }}
          >
            <div style={{ flex: 1, minWidth: 220 }}>
              <TextField label="User id" required placeholder="The id your backend uses, e.g. user-42" {...form.field('userId')} />
            </div>
            <Button variant="primary" type="submit">
              Look up devices
            </Button>
          </Form>
        </Card>
        {userId && (
          <Card title={`Devices of ${userId}`} bodyless>
            <DataTable
              label={`Devices of ${userId}`}
              columns={columns}
              rows={devices.data}
              rowKey={(d) => d.id}
              loading={devices.isLoading}
              error={devices.error}
              notice={unregister.error && <ErrorNotice error={unregister.error} />}
              empty={
                <EmptyState title="No devices for this user">
                  Check the id, or register a device from your backend with <code>POST /push/register-device</code>.
                </EmptyState>
              }
            />
          </Card>
        )}
      </div>
    </>
  );
}
