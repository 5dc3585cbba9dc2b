import { useMemo, useState } from 'react';
import { useTemplateVariables, type Schemas } from '../api/hooks';
import { nestVariables } from '../lib/variables';
import { ErrorNotice, Loading, SelectField, TextField } from './ui';

/** A chosen template and the values typed for its variables, as a send takes them. */
export function useTemplateChoice(projectId: string) {
  const [templateId, setTemplateId] = useState('');
  const [values, setValues] = useState<Record<string, string>>({});
  const variables = useTemplateVariables(projectId, templateId || undefined);
  const names = useMemo(() => variables.data?.variables ?? [], [variables.data]);
  return {
    templateId,
    setTemplateId,
    values,
    setValues,
    variables,
    names,
    /** The `variables` of the request: every variable of the template, dotted names nested. */
    request: nestVariables(Object.fromEntries(names.map((n) => [n, values[n] ?? '']))),
  };
}
export type TemplateChoice = ReturnType<typeof useTemplateChoice>;

/** The template select of a send form. */
export function TemplateSelect({ choice, templates, error, onChange }: { choice: TemplateChoice; templates: Schemas['Template'][]; error?: string; onChange?: () => void }) {
  return (
    <SelectField
      label="Template"
      required
      error={error}
      value={choice.templateId}
      onChange={(e) => {
        choice.setTemplateId(e.target.value);
        onChange?.();
      }}
    >
      <option value="">Choose a template…</option>
      {templates.map((t) => (
        <option key={t.id} value={t.id}>
          {t.name}
        </option>
      ))}
    </SelectField>
  );
}

/** One text field per variable of the chosen template. */
export function VariableFields({ choice }: { choice: TemplateChoice }) {
  const { templateId, variables, names, values, setValues } = choice;
  return (
    <>
      {templateId && variables.isLoading && <Loading label="Reading the template's variables…" />}
      <ErrorNotice error={variables.error} />
      {names.length > 0 && (
        <fieldset className="stack-sm">
          <legend>Variables</legend>
          <div className="grid-2">
            {names.map((n) => (
              <TextField key={n} label={n} value={values[n] ?? ''} onChange={(e) => setValues({ ...values, [n]: e.target.value })} />
            ))}
          </div>
        </fieldset>
      )}
    </>
  );
}
