import { Switch as RadixSwitch } from 'radix-ui';
import { useId } from 'react';

/** An on/off switch; its label is visible with `showLabel`, otherwise its accessible name. */
export function Switch({ label, checked, onCheckedChange, disabled, showLabel = false }: { label: string; checked: boolean; onCheckedChange: (v: boolean) => void; disabled?: boolean; showLabel?: boolean }) {
  const id = useId();
  return (
    <span className="switch-row">
      <RadixSwitch.Root id={id} className="switch" checked={checked} onCheckedChange={onCheckedChange} disabled={disabled} aria-label={showLabel ? undefined : label}>
        <RadixSwitch.Thumb className="switch-thumb" />
      </RadixSwitch.Root>
      {showLabel && <label htmlFor={id}>{label}</label>}
    </span>
  );
}
