import type { FormHTMLAttributes } from 'react';

/**
 * A form the page checks itself (`noValidate`: the API's own zod schemas, not the browser's rules)
 * and sends without leaving the page: `onSubmit` runs instead of the browser's submission.
 */
export function Form({ onSubmit, ...props }: Omit<FormHTMLAttributes<HTMLFormElement>, 'onSubmit'> & { onSubmit: () => void }) {
  return (
    <form
      noValidate
      {...props}
      onSubmit={(e) => {
        e.preventDefault();
        onSubmit();
      }}
    />
  );
}
