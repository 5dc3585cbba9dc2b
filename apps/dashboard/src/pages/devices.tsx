import { useState } from 'react';
import { useDevices, useUnregisterDevice } from '../api/hooks';
import { useProjectContext } from '../components/layout';
import { Button, Card, ConfirmButton, EmptyState, ErrorNotice, formatDate, Loading, PageHeader, TextField } from '../components/ui';

export function DevicesPage() {
  const { projectId } = useProjectContext();
  const [input, setInput] = useState('');
  const [userId, setUserId] = useState('');
  const devices = useDevices(projectId, userId);
  const unregister = useUnregisterDevice(projectId, userId);
  return (
    <>
      <PageHeader title="Devices" description="Your backend registers each user's device tokens with an API key. Look up the devices of one of your users by their id." />
      <div className="stack">
        <Card>
          <form
            className="row"
            style={{ alignItems: 'flex-end' }}
            onSubmit={(e) => {
              e.preventDefault();
              setUserId(input.trim());
            }}
          >
            <div style={{ flex: 1, minWidth: 220 }}>
              <TextField label="User id" required value={input} onChange={(e) => setInput(e.target.value)} placeholder="The id your backend uses, e.g. user-42" />
            </div>
            <Button variant="primary" type="submit">
              Look up devices
            </Button>
          </form>
        </Card>
        {userId && (
          <Card title={`Devices of ${userId}`} bodyless>
            {devices.isLoading ? (
              <Loading />
            ) : devices.error ? (
              <div className="card-body"><ErrorNotice error={devices.error} /></div>
            ) : !devices.data?.length ? (
              <EmptyState title="No devices for this user">
                Check the id, or register a device from your backend with <code>POST /push/register-device</code>.
              </EmptyState>
            ) : (
              <>
                {unregister.error && <div className="card-body"><ErrorNotice error={unregister.error} /></div>}
                <div className="table-wrap">
                  <table>
                    <thead>
                      <tr>
                        <th>Platform</th>
                        <th>Token</th>
                        <th className="hide-sm">Last seen</th>
                        <th className="hide-sm">Registered</th>
                        <th><span className="visually-hidden">Actions</span></th>
                      </tr>
                    </thead>
                    <tbody>
                      {devices.data.map((d) => (
                        <tr key={d.id}>
                          <td><span className="badge">{d.platform}</span> <span className="muted small">{d.provider}</span></td>
                          <td><code className="truncate" style={{ display: 'inline-block', verticalAlign: 'middle' }} title={d.deviceToken}>{d.deviceToken}</code></td>
                          <td className="hide-sm muted">{formatDate(d.lastSeenAt)}</td>
                          <td className="hide-sm muted">{formatDate(d.createdAt)}</td>
                          <td className="actions-cell">
                            <ConfirmButton label="Unregister" ariaLabel={`Unregister ${d.platform} device ${d.deviceToken.slice(0, 12)}`} title="Unregister this device?" description="It receives no more notifications until your backend registers its token again." confirmLabel="Unregister" onConfirm={() => unregister.mutateAsync(d.deviceToken)} />
                          </td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </div>
              </>
            )}
          </Card>
        )}
      </div>
    </>
  );
}
