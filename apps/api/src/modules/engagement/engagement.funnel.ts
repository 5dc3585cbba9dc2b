/** A notification's engagement counters (NotificationEngagement). */
export interface EngagementCounts {
  received: number;
  opened: number;
  clicked: number;
  dismissed: number;
}

export const NO_ENGAGEMENT: EngagementCounts = { received: 0, opened: 0, clicked: 0, dismissed: 0 };

const ratio = (n: number, of: number) => (of > 0 ? Math.round((n / of) * 10_000) / 10_000 : 0);

/** The funnel of a notification: its counters, and each over the messages FCM accepted (`delivered`), to four decimals. */
export function funnelOf(c: EngagementCounts, delivered: number) {
  const { received, opened, clicked, dismissed } = c;
  return {
    received,
    opened,
    clicked,
    dismissed,
    rates: { received: ratio(received, delivered), opened: ratio(opened, delivered), clicked: ratio(clicked, delivered), dismissed: ratio(dismissed, delivered) },
  };
}
