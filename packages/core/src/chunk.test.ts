import { chunk } from './chunk';
import { NO_ENABLED_PROVIDER, PUSH_DISABLED, PUSH_NOT_CONFIGURED, pushUnavailableReason } from './push-readiness';

it('chunk slices in order, the last slice shorter; a size below 1 is refused', () => {
  expect(chunk([1, 2, 3, 4, 5], 2)).toEqual([[1, 2], [3, 4], [5]]);
  expect(chunk([], 3)).toEqual([]);
  expect(chunk([1, 2], 5)).toEqual([[1, 2]]);
  expect(() => chunk([1], 0)).toThrow(RangeError);
});

it('a project delivers with an enabled push config and a provider; otherwise the first reason missing', () => {
  expect(pushUnavailableReason({ configEnabled: true, hasProvider: true })).toBeNull();
  expect(pushUnavailableReason({ configEnabled: null, hasProvider: false })).toBe(PUSH_NOT_CONFIGURED);
  expect(pushUnavailableReason({ configEnabled: false, hasProvider: true })).toBe(PUSH_DISABLED);
  expect(pushUnavailableReason({ configEnabled: true, hasProvider: false })).toBe(NO_ENABLED_PROVIDER);
});
