type Issue = { path: readonly PropertyKey[]; message: string };

/** The first message for each top-level field: a form shows one error under each of its fields. */
export function errorsByField(issues: readonly Issue[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const issue of issues) out[String(issue.path[0] ?? '')] ??= issue.message;
  return out;
}

/** The field errors of an API answer: a 400's `details` name their input by a dotted path (`recipients.3.userId`). */
export function answeredErrors(error: unknown): Record<string, string> {
  const details = (error as { details?: unknown } | null | undefined)?.details;
  if (!Array.isArray(details)) return {};
  return errorsByField(details.map((d: { path: string; message: string }) => ({ path: d.path.split('.'), message: d.message })));
}
