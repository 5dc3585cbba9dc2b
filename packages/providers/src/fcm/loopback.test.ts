import http2 from 'node:http2';
import { startLoopbackFcm } from './loopback';
import { FcmProvider } from './provider';

describe('startLoopbackFcm', () => {
  it('answers sends as FCM answers an accepted message, on 127.0.0.1, until it is closed', async () => {
    const fcm = await startLoopbackFcm();
    expect(fcm.host).toMatch(/^127\.0\.0\.1:\d+$/);
    const client = new FcmProvider({ projectId: 'warm', clientEmail: 'warm@herald.invalid', privateKey: '' }, { emulatorHost: fcm.host, fixedAccessToken: 'fixed' });
    const results = await client.send([
      { token: 'a', title: 'T', body: 'B' },
      { token: 'b', title: 'T', body: 'B', platform: 'ios' },
    ]);
    expect(results).toEqual([
      { status: 'sent', providerMessageId: 'projects/warm/messages/1' },
      { status: 'sent', providerMessageId: 'projects/warm/messages/2' },
    ]);
    expect(fcm.answered).toBe(2);
    await client.close();
    await fcm.close();

    // Closed: nothing listens on its port any more.
    const session = http2.connect(`http://${fcm.host}`);
    const error = await new Promise<Error & { code?: string }>((resolve) => session.once('error', resolve));
    expect(error.code).toBe('ECONNREFUSED');
    session.destroy();
  });
});
