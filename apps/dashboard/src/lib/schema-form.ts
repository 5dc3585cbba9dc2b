import { useState } from 'react';
import type { z } from 'zod';
import { answeredErrors, errorsByField } from './field-errors';

type Schema = z.ZodType<object, object>;

/**
 * A request built from a form, checked with the zod schema the API validates it with, so that the
 * form says what the API would answer before anything is sent, in the API's words. Errors show once
 * the user has tried to send and then follow the input; a 400 the API still gives (a rule only it can
 * check) shows under its field too.
 */
export function useSchemaCheck<S extends Schema>(schema: S, request: z.input<S>, answer?: unknown) {
  const [submitted, setSubmitted] = useState(false);
  const parsed = submitted ? schema.safeParse(request) : undefined;
  return {
    errors: { ...answeredErrors(answer), ...(parsed && !parsed.success ? errorsByField(parsed.error.issues) : {}) },
    /** When the request passes, hands it on as the API will read it (trimmed, lowercased, defaults set). */
    submit(onValid: (data: z.output<S>) => void, now: z.input<S> = request) {
      setSubmitted(true);
      const result = schema.safeParse(now);
      if (result.success) onValid(result.data);
    },
    reset: () => setSubmitted(false),
  };
}

/** A form whose values are the request itself (text fields bound by name), checked as `useSchemaCheck` does. */
export function useSchemaForm<S extends Schema>(schema: S, initial: z.input<S>, answer?: unknown) {
  type Values = z.input<S>;
  const [values, setValues] = useState<Values>(initial);
  const check = useSchemaCheck(schema, values, answer);
  const set = <K extends keyof Values>(key: K, value: Values[K]) => setValues((v) => ({ ...v, [key]: value }));
  return {
    values,
    errors: check.errors,
    set,
    /** Props for a text field bound to `key`: its value, its change handler and its error. */
    field: (key: keyof Values & string) => ({
      value: String(values[key] ?? ''),
      onChange: (e: { target: { value: string } }) => set(key, e.target.value as Values[typeof key]),
      error: check.errors[key],
    }),
    /** `known`: what the form does not edit, read as it is at the moment of sending. */
    submit(onValid: (data: z.output<S>) => void, known?: Partial<Values>) {
      const now = known ? { ...values, ...known } : values;
      if (known) setValues(now);
      check.submit(onValid, now);
    },
    reset(next: Values = initial) {
      setValues(next);
      check.reset();
    },
  };
}
