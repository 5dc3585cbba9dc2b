/**
 * Whether a project can deliver pushes, and the message when it cannot: the API refuses a send with
 * it (409), and the worker fails the deliveries of a notification with it when the project changed
 * between acceptance and delivery. One wording for both.
 */
export const PUSH_NOT_CONFIGURED = 'Push notifications are not configured for this project';
export const PUSH_DISABLED = 'Push notifications are disabled for this project';
export const NO_ENABLED_PROVIDER = 'No enabled push provider is configured for this project';

export interface PushReadiness {
  /** The project's push config's `enabled`, or null when the project has no push config. */
  configEnabled: boolean | null;
  /** Whether at least one enabled provider is configured (and usable). */
  hasProvider: boolean;
}

/** The reason a project cannot deliver, or null when it can. */
export function pushUnavailableReason({ configEnabled, hasProvider }: PushReadiness): string | null {
  if (configEnabled === null) return PUSH_NOT_CONFIGURED;
  if (!configEnabled) return PUSH_DISABLED;
  if (!hasProvider) return NO_ENABLED_PROVIDER;
  return null;
}
