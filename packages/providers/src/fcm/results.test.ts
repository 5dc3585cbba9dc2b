import { toFcmMessage } from './message';
import { parseRetryAfter, toTokenResult } from './results';

const NOW = Date.parse('2025-06-01T12:00:00Z');
const fcmError = (code: number, status: string, message: string, details: unknown[] = []) => JSON.stringify({ error: { code, message, status, details } });
const fcmDetail = (errorCode: string) => ({ '@type': 'type.googleapis.com/google.firebase.fcm.v1.FcmError', errorCode });

describe('toTokenResult', () => {
  it('reads the message name of a 200', () => {
    expect(toTokenResult(200, {}, '{"name":"projects/p/messages/1"}', NOW)).toEqual({ status: 'sent', providerMessageId: 'projects/p/messages/1' });
    expect(toTokenResult(200, {}, 'oops', NOW).status).toBe('failed');
  });

  it('prunes only on an error about the token', () => {
    const aboutToken = fcmError(400, 'INVALID_ARGUMENT', "Invalid value at 'message.token'", [
      { '@type': 'type.googleapis.com/google.rpc.BadRequest', fieldViolations: [{ field: 'message.token', description: 'bad' }] },
    ]);
    expect(toTokenResult(400, {}, aboutToken, NOW).status).toBe('invalid_token');
    const aboutPayload = fcmError(400, 'INVALID_ARGUMENT', 'Message is too big', [fcmDetail('INVALID_ARGUMENT')]);
    expect(toTokenResult(400, {}, aboutPayload, NOW).status).toBe('failed');
    // A 404 without UNREGISTERED (a wrong project, say) must not delete devices.
    expect(toTokenResult(404, {}, fcmError(404, 'NOT_FOUND', 'Requested entity was not found.'), NOW).status).toBe('failed');
    expect(toTokenResult(404, {}, fcmError(404, 'NOT_FOUND', 'Requested entity was not found.', [fcmDetail('UNREGISTERED')]), NOW).status).toBe('invalid_token');
  });

  it('reads an FCM code given as the status, without a detail', () => {
    expect(toTokenResult(404, {}, fcmError(404, 'UNREGISTERED', 'Token is not registered'), NOW).status).toBe('invalid_token');
    expect(toTokenResult(403, {}, fcmError(403, 'SENDER_ID_MISMATCH', 'SenderId mismatch'), NOW).status).toBe('sender_mismatch');
    expect(toTokenResult(429, {}, fcmError(429, 'QUOTA_EXCEEDED', 'Quota exceeded'), NOW).status).toBe('retryable');
  });

  it('treats 401/403 without an FCM error code as rejected credentials', () => {
    expect(toTokenResult(401, {}, fcmError(401, 'UNAUTHENTICATED', 'Request had invalid authentication credentials.'), NOW).status).toBe('auth_failed');
    expect(toTokenResult(403, {}, fcmError(403, 'PERMISSION_DENIED', 'Firebase Cloud Messaging API has not been used'), NOW).status).toBe('auth_failed');
  });

  it('treats 5xx and 429 as retryable even without a JSON body; a 5xx leaves the fate unknown (ambiguous)', () => {
    expect(toTokenResult(502, { 'retry-after': '5' }, '<html>Bad Gateway</html>', NOW)).toEqual({
      status: 'retryable',
      error: 'FCM 502 error: <html>Bad Gateway</html>',
      retryAfterMs: 5000,
      ambiguous: true,
    });
    expect(toTokenResult(429, {}, '', NOW)).toEqual({ status: 'retryable', error: 'FCM 429 error: (empty body)', retryAfterMs: undefined });
  });
});

describe('parseRetryAfter', () => {
  it.each([
    ['120', 120_000],
    [' 0 ', 0],
    ['Sun, 01 Jun 2025 12:00:30 GMT', 30_000],
    ['Sun, 01 Jun 2025 11:00:00 GMT', 0],
    ['soon', undefined],
    [undefined, undefined],
  ])('%s → %s', (value, ms) => expect(parseRetryAfter(value, NOW)).toBe(ms));
});

describe('toFcmMessage', () => {
  it('builds the minimal message without empty data', () => {
    expect(toFcmMessage({ token: 't', title: 'T', body: 'B', data: {} })).toEqual({ token: 't', notification: { title: 'T', body: 'B' } });
  });

  it('adds both platform image blocks when the platform is unknown', () => {
    expect(toFcmMessage({ token: 't', title: 'T', body: 'B', imageUrl: 'https://i/x.png', data: { k: 'v' } })).toEqual({
      token: 't',
      notification: { title: 'T', body: 'B', image: 'https://i/x.png' },
      data: { k: 'v' },
      apns: { payload: { aps: { 'mutable-content': 1 } }, fcm_options: { image: 'https://i/x.png' } },
      webpush: { notification: { image: 'https://i/x.png' } },
    });
  });
});
