import { FINAL_NOTIFICATION_STATUSES } from '@herald/core';
import { FINAL_STATUSES } from './index';

/**
 * The client is published on its own and depends on no other Herald package, so it spells the final
 * statuses out; they are packages/core's, the one list the API and the worker use.
 */
it('the final statuses are those of packages/core', () => {
  expect([...FINAL_STATUSES]).toEqual([...FINAL_NOTIFICATION_STATUSES]);
});
