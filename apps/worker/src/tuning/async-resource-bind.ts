import { leanAsyncResourceBind } from '@herald/providers';

/**
 * Every FCM request goes through node:http2, whose `AsyncResource#bind` cost up to a fifth of the
 * worker's CPU per delivery for a deprecated property (Node 20; less on 22): the worker replaces the
 * method for its own process, first thing at start, before any client exists. The replacement and
 * why it behaves the same: packages/providers/src/fcm/async-resource-bind.ts.
 */
export function installLeanAsyncResourceBind(): void {
  leanAsyncResourceBind();
}
