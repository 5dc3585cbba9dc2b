import { z } from 'zod';
import { jsonBytes } from './bytes';
import { uuid } from './ids';
import { pushOptionsSchema } from './push-options';

const NAME_MAX = 200;
const TITLE_MAX = 1000;
const BODY_MAX = 4000;
/** FCM refuses a message over 4 KB, so the static payload alone may not be bigger. */
const DATA_MAX_BYTES = 4096;

/** FCM's reserved data keys: a template using one could never be sent. */
const RESERVED_DATA_KEY = /^(from|message_type|notification)$|^(google|gcm)/;

const text = (field: string, max: number) =>
  z
    .string({ error: `${field} must be a string` })
    .min(1, `${field} is required`)
    .max(max, `${field} must be at most ${max} characters`);

export const templateName = z
  .string({ error: 'name must be a string' })
  .trim()
  .min(1, 'name is required')
  .max(NAME_MAX, `name must be at most ${NAME_MAX} characters`);
export const templateTitle = text('title', TITLE_MAX);
export const templateBody = text('body', BODY_MAX);

/**
 * Key → any JSON value; non-string values are JSON-encoded when sent (docs/delivery.md). The values
 * come out of a parsed JSON body or file, so each is a JSON value already (`z.unknown()` rather than
 * the recursive `z.json()`, which says no more and which API documents and client generators would
 * have to unfold).
 */
export const templateData = z
  .record(z.string().min(1, 'data keys must not be empty').max(256, 'data keys must be at most 256 characters'), z.unknown(), {
    error: 'data must be an object of keys to values',
  })
  .superRefine((data, ctx) => {
    for (const key of Object.keys(data)) {
      if (RESERVED_DATA_KEY.test(key)) ctx.addIssue({ code: 'custom', path: [key], message: `data key "${key}" is reserved by FCM` });
    }
    if (jsonBytes(data) > DATA_MAX_BYTES) {
      ctx.addIssue({ code: 'custom', message: `data must be at most ${DATA_MAX_BYTES} bytes as JSON` });
    }
  });

/** Default delivery and platform options of the template's sends; a send's own values win field by field. */
export const templateOptions = pushOptionsSchema.describe(
  "Default options of this template's sends (priority, ttl, collapseKey, android, apns, webpush); a send's own values win field by field",
);

export const createTemplateBody = z.object({
  projectId: uuid('projectId'),
  name: templateName,
  title: templateTitle,
  body: templateBody,
  data: templateData.nullish(),
  options: templateOptions.nullish(),
});

export const updateTemplateBody = z.object({
  /** Only accepted when it names the template's own project (`projectId cannot be updated` otherwise). */
  projectId: z.unknown().optional(),
  name: templateName.optional(),
  title: templateTitle.optional(),
  body: templateBody.optional(),
  /** Replaces the whole payload; null clears it. */
  data: templateData.nullish(),
  /** Replaces every default option; null clears them. */
  options: templateOptions.nullish(),
});
