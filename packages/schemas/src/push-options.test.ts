import { mergePushOptions, pushOptionsSchema, readPushOptions } from './push-options';

describe('push options', () => {
  it("a send's value wins field by field, inside the platform blocks too", () => {
    const template = { priority: 'normal', ttl: 600, android: { channelId: 'news', sound: 'default' }, apns: { badge: 1 } } as const;
    const send = { priority: 'high', android: { sound: 'ping' }, webpush: { urgency: 'low' } } as const;
    expect(mergePushOptions(template, send)).toEqual({
      priority: 'high',
      ttl: 600,
      android: { channelId: 'news', sound: 'ping' },
      apns: { badge: 1 },
      webpush: { urgency: 'low' },
    });
    expect(mergePushOptions(null, undefined)).toEqual({});
  });

  it('validates each field with a message naming it', () => {
    const issues = (v: unknown) => pushOptionsSchema.safeParse(v).error?.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    expect(issues({ priority: 'urgent' })).toEqual(['priority: priority must be high or normal']);
    expect(issues({ ttl: 2_419_201 })).toEqual(['ttl: ttl must be at most 2419200 seconds (28 days)']);
    expect(issues({ ttl: 1.5 })).toEqual(['ttl: ttl must be an integer']);
    expect(issues({ collapseKey: 'has space' })).toEqual(['collapseKey: collapseKey must be 1 to 32 letters, digits, "-" or "_"']);
    expect(issues({ android: { color: 'red' } })).toEqual(['android.color: android.color must be a #rrggbb colour']);
    expect(issues({ apns: { badge: -1 } })).toEqual(['apns.badge: apns.badge must be at least 0']);
    expect(issues({ webpush: { link: 'http://x.example/' } })).toEqual(['webpush.link: webpush.link must be an https URL']);
    expect(issues({ webpush: { urgency: 'now' } })).toEqual(['webpush.urgency: webpush.urgency must be one of very-low, low, normal, high']);
    expect(issues({ ttl: 0, apns: { badge: 0, contentAvailable: false } })).toBeUndefined();
  });

  it('reads stored options back, dropping what cannot be read', () => {
    expect(readPushOptions({ ttl: 5, android: {} })).toEqual({ ttl: 5 });
    expect(readPushOptions(null)).toEqual({});
    expect(readPushOptions('garbage')).toEqual({});
  });
});
