import type { ButtonHTMLAttributes } from 'react';

type Variant = 'primary' | 'secondary' | 'danger' | 'ghost';

export function Button({ variant = 'secondary', size, className = '', ...props }: ButtonHTMLAttributes<HTMLButtonElement> & { variant?: Variant; size?: 'sm' }) {
  const classes = ['btn', variant !== 'secondary' && `btn-${variant}`, size && `btn-${size}`, className].filter(Boolean).join(' ');
  return <button type="button" className={classes} {...props} />;
}
