import { fcmPayloadBytes, FCM_MAX_PAYLOAD_BYTES, toFcmMessage } from './message';

/**
 * The shapes below are those of Google's FCM guides ("Set the priority of a message", "Set the
 * lifespan of a message", "Non-collapsible and collapsible messages", "Send messages to Apple
 * devices in the background") and the HTTP v1 reference (AndroidConfig, AndroidNotification,
 * ApnsConfig, WebpushConfig, WebpushFcmOptions).
 */
const NOW = Date.UTC(2026, 10, 23, 12, 0, 0);
const NOW_S = NOW / 1000;
const base = { token: 'tok', title: 'Hi', body: 'There', data: { k: 'v' } };

describe('toFcmMessage: no options', () => {
  it('is the message Herald always sent', () => {
    for (const platform of ['android', 'ios', 'web', undefined] as const) {
      expect(toFcmMessage({ ...base, platform }, NOW)).toEqual({ token: 'tok', notification: { title: 'Hi', body: 'There' }, data: { k: 'v' } });
    }
  });
});

describe('toFcmMessage: priority, ttl and collapseKey on each platform', () => {
  const options = { priority: 'normal', ttl: 4500, collapseKey: 'score-update' } as const;

  it('android: priority, ttl as a Duration, collapse_key', () => {
    expect(toFcmMessage({ ...base, platform: 'android', options }, NOW).android).toEqual({ priority: 'normal', ttl: '4500s', collapse_key: 'score-update' });
  });

  it('ios: apns-priority 5/10, apns-expiration as UNIX seconds, apns-collapse-id, apns-push-type alert', () => {
    expect(toFcmMessage({ ...base, platform: 'ios', options }, NOW).apns).toEqual({
      headers: { 'apns-priority': '5', 'apns-expiration': String(NOW_S + 4500), 'apns-collapse-id': 'score-update', 'apns-push-type': 'alert' },
    });
    expect(toFcmMessage({ ...base, platform: 'ios', options: { priority: 'high' } }, NOW).apns).toEqual({ headers: { 'apns-priority': '10', 'apns-push-type': 'alert' } });
  });

  it('web: Urgency, TTL in seconds, Topic', () => {
    expect(toFcmMessage({ ...base, platform: 'web', options }, NOW).webpush).toEqual({ headers: { Urgency: 'normal', TTL: '4500', Topic: 'score-update' } });
  });

  it('only the block of the device platform; every block for an unknown platform', () => {
    const android = toFcmMessage({ ...base, platform: 'android', options }, NOW);
    expect(android.apns).toBeUndefined();
    expect(android.webpush).toBeUndefined();
    const unknown = toFcmMessage({ ...base, options }, NOW);
    expect(Object.keys(unknown).sort()).toEqual(['android', 'apns', 'data', 'notification', 'token', 'webpush']);
  });

  it('ttl 0: "0s" on Android, apns-expiration 0 (deliver once, never stored), TTL 0 on the web', () => {
    const m = toFcmMessage({ ...base, options: { ttl: 0 } }, NOW);
    expect(m.android).toEqual({ ttl: '0s' });
    expect(m.apns!.headers).toEqual({ 'apns-expiration': '0', 'apns-push-type': 'alert' });
    expect(m.webpush).toEqual({ headers: { TTL: '0' } });
  });
});

describe('toFcmMessage: platform blocks', () => {
  it('android.notification with FCM names', () => {
    const m = toFcmMessage({ ...base, platform: 'android', options: { android: { channelId: 'news', sound: 'default', tag: 't1', clickAction: 'OPEN_NEWS', color: '#ff0000', icon: 'ic_stat' } } }, NOW);
    expect(m.android).toEqual({ notification: { channel_id: 'news', sound: 'default', tag: 't1', click_action: 'OPEN_NEWS', color: '#ff0000', icon: 'ic_stat' } });
  });

  it('apns.payload.aps with APNs names', () => {
    const m = toFcmMessage(
      { ...base, platform: 'ios', options: { apns: { sound: 'ping.caf', badge: 3, category: 'NEW_MESSAGE', threadId: 'chat-7', contentAvailable: true, mutableContent: true } } },
      NOW,
    );
    expect(m.apns).toEqual({ payload: { aps: { sound: 'ping.caf', badge: 3, category: 'NEW_MESSAGE', 'thread-id': 'chat-7', 'content-available': 1, 'mutable-content': 1 } } });
  });

  it('badge 0 is sent (it clears the badge)', () => {
    expect(toFcmMessage({ ...base, platform: 'ios', options: { apns: { badge: 0 } } }, NOW).apns).toEqual({ payload: { aps: { badge: 0 } } });
  });

  it('webpush: fcm_options.link, and urgency overrides the one priority implies', () => {
    const m = toFcmMessage({ ...base, platform: 'web', options: { priority: 'high', webpush: { link: 'https://app.example.com/inbox', urgency: 'low' } } }, NOW);
    expect(m.webpush).toEqual({ headers: { Urgency: 'low' }, fcm_options: { link: 'https://app.example.com/inbox' } });
  });

  it('an image keeps its blocks beside the options', () => {
    const imageUrl = 'https://cdn.example.com/a.png';
    const ios = toFcmMessage({ ...base, imageUrl, platform: 'ios', options: { apns: { sound: 'default' }, priority: 'high' } }, NOW);
    expect(ios.apns).toEqual({ headers: { 'apns-priority': '10', 'apns-push-type': 'alert' }, payload: { aps: { sound: 'default', 'mutable-content': 1 } }, fcm_options: { image: imageUrl } });
    const web = toFcmMessage({ ...base, imageUrl, platform: 'web', options: { webpush: { link: 'https://x.example/' } } }, NOW);
    expect(web.webpush).toEqual({ notification: { image: imageUrl }, fcm_options: { link: 'https://x.example/' } });
  });
});

describe('toFcmMessage: data-only', () => {
  it('no notification block; title, body (and image) in data', () => {
    const m = toFcmMessage({ ...base, imageUrl: 'https://cdn.example.com/a.png', platform: 'android', dataOnly: true, options: { priority: 'high' } }, NOW);
    expect(m).toEqual({ token: 'tok', data: { k: 'v', title: 'Hi', body: 'There', image: 'https://cdn.example.com/a.png' }, android: { priority: 'high' } });
  });

  it('ios: a background push as Google documents it, whatever the priority; display options left out', () => {
    const m = toFcmMessage({ ...base, platform: 'ios', dataOnly: true, options: { priority: 'high', apns: { sound: 'default', badge: 1 } } }, NOW);
    expect(m.notification).toBeUndefined();
    expect(m.apns).toEqual({ headers: { 'apns-priority': '5', 'apns-push-type': 'background' }, payload: { aps: { 'content-available': 1 } } });
  });

  it('android display options and the web link are left out', () => {
    const m = toFcmMessage({ ...base, dataOnly: true, options: { android: { channelId: 'c' }, webpush: { link: 'https://x.example/' } } }, NOW);
    expect(m.android).toBeUndefined();
    expect(m.webpush).toBeUndefined();
  });
});

describe('fcmPayloadBytes', () => {
  it('counts notification, data and platform payloads, not headers or the token', () => {
    const small = toFcmMessage({ ...base, token: 'x'.repeat(5000), options: { ttl: 60, collapseKey: 'k' } }, NOW);
    expect(fcmPayloadBytes(small)).toBeLessThan(200);
    const big = toFcmMessage({ ...base, body: 'é'.repeat(2100) }, NOW);
    expect(fcmPayloadBytes(big)).toBeGreaterThan(FCM_MAX_PAYLOAD_BYTES);
  });
});

describe('toFcmMessage: repeats replace, never stack', () => {
  const collapseId = '0190f3a2b4c56d7e8f90a1b2c3d4e5f6';
  const deliveryId = '0190f3a2-b4c5-7d7e-8f90-a1b2c3d4e5f7';

  it('the collapse id is the Android tag, apns-collapse-id and Web Push Topic; the delivery id is in data', () => {
    const m = toFcmMessage({ ...base, data: { a: '1' }, collapseId, deliveryId }, NOW);
    expect(m.android).toEqual({ notification: { tag: collapseId } });
    expect(m.apns?.headers).toEqual({ 'apns-collapse-id': collapseId, 'apns-push-type': 'alert' });
    expect(m.webpush?.headers).toEqual({ Topic: collapseId });
    expect(m.data).toEqual({ a: '1', herald_delivery_id: deliveryId });
  });

  it("a send's own android.tag and collapseKey win", () => {
    const m = toFcmMessage({ ...base, collapseId, deliveryId, options: { collapseKey: 'mine', android: { tag: 'my-tag' } } }, NOW);
    expect(m.android?.notification?.tag).toBe('my-tag');
    expect(m.apns?.headers?.['apns-collapse-id']).toBe('mine');
    expect(m.webpush?.headers?.Topic).toBe('mine');
  });

  it('data-only: the delivery id beside title and body; no Android tag (nothing is shown)', () => {
    const m = toFcmMessage({ ...base, platform: 'android', dataOnly: true, collapseId, deliveryId }, NOW);
    expect(m.data).toEqual({ k: 'v', title: base.title, body: base.body, herald_delivery_id: deliveryId });
    expect(m.android).toBeUndefined();
  });
});
