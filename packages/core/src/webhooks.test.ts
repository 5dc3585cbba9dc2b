import { Webhook } from 'standardwebhooks';
import { generateWebhookSecret, isPublicAddress, signWebhook, webhookUrlProblem } from './webhooks';

describe('signWebhook', () => {
  it('signs as Standard Webhooks does: the reference library verifies it, with each secret during a rotation', () => {
    const [current, previous, other] = [generateWebhookSecret(), generateWebhookSecret(), generateWebhookSecret()];
    const body = JSON.stringify({ type: 'webhook.test', id: 'e1', data: { a: 'ü' } });
    const headers = signWebhook([current, previous], 'e1', new Date(), body);
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=* v1,[A-Za-z0-9+/]+=*$/);
    expect(new Webhook(current).verify(body, headers)).toEqual(JSON.parse(body));
    expect(new Webhook(previous).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(other).verify(body, headers)).toThrow(/No matching signature/);
    expect(() => new Webhook(current).verify(body.replace('ü', 'u'), headers)).toThrow();
    const stale = signWebhook([current], 'e1', new Date(Date.now() - 10 * 60_000), body);
    expect(() => new Webhook(current).verify(body, stale)).toThrow(/too old/);
  });
});

describe('isPublicAddress', () => {
  it.each([
    ['8.8.8.8', true],
    ['2606:4700:4700::1111', true],
    ['127.0.0.1', false],
    ['0.0.0.0', false],
    ['10.0.0.1', false],
    ['172.16.5.4', false],
    ['192.168.1.1', false],
    ['100.64.0.1', false],
    ['169.254.169.254', false],
    ['::1', false],
    ['::', false],
    ['fe80::1', false],
    ['fc00::1', false],
    ['fd00:ec2::254', false],
    ['::ffff:127.0.0.1', false],
    ['::ffff:8.8.8.8', true],
    ['224.0.0.1', false],
    // IPv4-compatible IPv6 (::/96, deprecated) reaches the IPv4 inside: only global unicast passes.
    ['::127.0.0.1', false],
    ['::7f00:1', false],
    ['::a9fe:a9fe', false],
    ['2a00:1450:4001::1', true],
    ['4000::1', false],
    ['not an ip', false],
  ])('%s → %s', (address, expected) => {
    expect(isPublicAddress(address)).toBe(expected);
  });
});

describe('webhookUrlProblem', () => {
  const strict = { allowPrivate: false, httpHosts: ['hooks.local'] };
  it('accepts https anywhere public and http only to configured hosts', () => {
    expect(webhookUrlProblem('https://example.com/x', strict)).toBeUndefined();
    expect(webhookUrlProblem('http://hooks.local:8080/x', strict)).toBeUndefined();
    expect(webhookUrlProblem('http://example.com/x', strict)).toBe('url must use https');
  });
  it('refuses internal literals unless private addresses are allowed', () => {
    expect(webhookUrlProblem('https://127.0.0.1/x', strict)).toMatch(/loopback/);
    expect(webhookUrlProblem('https://127.0.0.1/x', { ...strict, allowPrivate: true })).toBeUndefined();
    expect(webhookUrlProblem('https://app.localhost/x', strict)).toMatch(/loopback/);
    expect(webhookUrlProblem('https://[::127.0.0.1]/x', strict)).toMatch(/loopback/);
  });
  it('refuses localhost with a trailing dot and single-label names, as the worker would at connect time', () => {
    for (const url of ['https://localhost./x', 'https://LOCALHOST./x', 'https://app.localhost./x']) expect(webhookUrlProblem(url, strict)).toMatch(/loopback/);
    for (const url of ['https://intranet/x', 'https://metadata/x', 'https://vm./x']) expect(webhookUrlProblem(url, strict)).toBe('url must use a fully qualified domain name');
    expect(webhookUrlProblem('https://example.com./x', strict)).toBeUndefined();
    expect(webhookUrlProblem('https://intranet/x', { ...strict, allowPrivate: true })).toBeUndefined();
    expect(webhookUrlProblem('http://receiver:8080/x', { ...strict, httpHosts: ['receiver'] })).toBeUndefined();
  });
});
