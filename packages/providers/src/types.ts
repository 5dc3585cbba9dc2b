import type { PushOptions } from '@herald/core';

/** One rendered push for one device token. Every `data` value is already a string (FCM requires it). */
export interface PushMessage {
  token: string;
  title: string;
  body: string;
  imageUrl?: string;
  data?: Record<string, string>;
  platform?: 'android' | 'ios' | 'web';
  /** Delivery and per-platform options (priority, ttl, collapse key, android / apns / webpush). */
  options?: PushOptions;
  /** No notification for the system to show: title and body travel in `data`, for the app to handle. */
  dataOnly?: boolean;
  /**
   * The delivery this message is (one device's copy of a notification): sent in `data` under
   * `herald_delivery_id`, the same on every attempt, so that an app can drop a repeat.
   */
  deliveryId?: string;
  /**
   * Names the notification on the device (≤ 32 base64url characters): the default Android
   * `notification.tag`, `apns-collapse-id` and Web Push `Topic`, so that a repeat replaces the shown
   * notification instead of stacking. A send's own `android.tag` / `collapseKey` win.
   */
  collapseId?: string;
}

/** The `data` key carrying a message's delivery id (apps drop repeats by it; engagement events name it). */
export const DELIVERY_ID_DATA_KEY = 'herald_delivery_id';

export interface SendOptions {
  /** A dry run: the provider validates each message (FCM's `validate_only`) and delivers nothing. */
  validateOnly?: boolean;
}

/**
 * The outcome of one message, as the provider reported it. No retries happen inside a provider:
 * the delivery module decides what to do with each status (prune, fail over, retry later).
 */
export type TokenResult =
  | { status: 'sent'; providerMessageId: string }
  /** The token is dead (FCM UNREGISTERED, or INVALID_ARGUMENT about the token): prune the device. */
  | { status: 'invalid_token'; error: string }
  /** The token belongs to another sender (Firebase project): try the next provider. */
  | { status: 'sender_mismatch'; error: string }
  /**
   * Transient (429, 500, 503, timeouts, connection loss): retry later, not before `retryAfterMs`.
   * `ambiguous`: the request reached FCM and its fate is unknown (a timeout, a 5xx, a connection lost
   * mid-request): the device may have been shown it.
   */
  | { status: 'retryable'; error: string; retryAfterMs?: number; ambiguous?: boolean }
  /** The provider rejected Herald's credentials: fail over to the next provider. */
  | { status: 'auth_failed'; error: string }
  /** Anything else: a permanent failure of this message. */
  | { status: 'failed'; error: string };

export type TokenStatus = TokenResult['status'];

export interface CredentialCheck {
  ok: boolean;
  error?: string;
}

/** A configured provider instance (one set of credentials). */
export interface PushProvider {
  /**
   * Sends each message; the result array is index-aligned with `messages`. Never throws for
   * per-message failures. `onResult`, when given, hears each message's result as soon as it is known
   * (it must not throw); results decided for the whole batch at once may come only in the array.
   */
  send(messages: readonly PushMessage[], onResult?: (index: number, result: TokenResult) => void, options?: SendOptions): Promise<TokenResult[]>;
  /** Proves the credentials work (for FCM: obtains an access token) without sending anything. */
  verifyCredentials(): Promise<CredentialCheck>;
  /**
   * Gets ready to send without sending (for FCM: obtains the access token and opens the HTTP/2
   * session), so that a first send does not wait for them; at once when ready already. Never
   * rejects: a failure is met again, and reported, by the send.
   */
  prepare?(): Promise<void>;
  /** Releases connections. */
  close(): Promise<void>;
}

/** FCM service-account credentials as stored by Herald (decrypted). */
export interface FcmCredentials {
  projectId: string;
  clientEmail: string;
  privateKey: string;
}
