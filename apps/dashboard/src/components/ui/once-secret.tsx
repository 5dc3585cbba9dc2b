import { useState } from 'react';
import { Button } from './button';
import { Notice } from './notices';

/** A secret shown once (a new API key): copy button and the warning that it will not be shown again. */
export function OnceSecret({ label, value }: { label: string; value: string }) {
  const [copied, setCopied] = useState<'yes' | 'failed' | null>(null);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setCopied('yes');
    } catch {
      setCopied('failed');
    }
  };
  return (
    <div className="stack-sm">
      <Notice kind="warning">
        <strong>Copy this key now: you will not see it again.</strong> Herald stores only its hash; a lost key means creating a new one.
      </Notice>
      <span className="label">{label}</span>
      <div className="secret">
        <code data-testid="once-secret" aria-label={label}>{value}</code>
        <Button variant="primary" onClick={copy}>
          {copied === 'yes' ? 'Copied' : 'Copy'}
        </Button>
      </div>
      <span className="small muted" role="status">
        {copied === 'yes' ? 'Copied to the clipboard.' : copied === 'failed' ? 'The browser refused the clipboard: select the key and copy it by hand.' : ''}
      </span>
    </div>
  );
}
