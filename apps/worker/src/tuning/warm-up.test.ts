import { warmUpDelivery } from './warm-up';

const policy = { maxAttempts: 5, baseDelayMs: 1000, maxDelayMs: 300_000 };

describe('warmUpDelivery', () => {
  it('sends its messages through the FCM client to a loopback stand-in, each answered as sent', async () => {
    expect(await warmUpDelivery({ messages: 250, roundSize: 100, busy: () => false, policy })).toEqual({ sent: 250, interrupted: false });
  });

  it('ends before its next round once real work has arrived', async () => {
    let asked = 0;
    // Asked at the start and before each round: idle until the third round.
    const busy = () => ++asked > 3;
    expect(await warmUpDelivery({ messages: 1000, roundSize: 100, busy, policy })).toEqual({ sent: 200, interrupted: true });
  });

  it('does nothing for a worker that has work from the start, or with no messages to send', async () => {
    expect(await warmUpDelivery({ messages: 1000, busy: () => true, policy })).toEqual({ sent: 0, interrupted: true });
    expect(await warmUpDelivery({ messages: 0, busy: () => false, policy })).toEqual({ sent: 0, interrupted: false });
  });
});
