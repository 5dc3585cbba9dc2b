import type { HTMLAttributes, ReactNode } from 'react';
import { ErrorNotice, Loading } from './notices';

export interface Column<T> {
  header: string;
  cell: (row: T, index: number) => ReactNode;
  /** The row's buttons: a header only screen readers read, the cell aligned to the end. */
  actions?: boolean;
  /** Left out on phones; what matters of it is shown in another cell there (`show-sm`). */
  hideOnPhone?: boolean;
  numeric?: boolean;
  /** Classes of the cells (`muted`, `truncate`, `small`…). */
  className?: string;
}

export interface DataTableProps<T> {
  /** The table's accessible name (a caption only screen readers read). */
  label: string;
  columns: Column<T>[];
  rows: readonly T[] | undefined;
  rowKey: (row: T, index: number) => string;
  loading?: boolean;
  /** The list could not be read: shown instead of the table. */
  error?: unknown;
  /** Shown instead of an empty table. */
  empty?: ReactNode;
  /** Shown above the table (the error of an action taken on a row, a confirmation). */
  notice?: ReactNode;
  /** Below the table (pagination). */
  footer?: ReactNode;
  rowProps?: (row: T, index: number) => HTMLAttributes<HTMLTableRowElement>;
}

const classes = (...names: (string | false | undefined)[]) => names.filter(Boolean).join(' ') || undefined;

/** A list in a card: its loading, error and empty states, then a table that narrows to a phone's width. */
export function DataTable<T>({ label, columns, rows, rowKey, loading, error, empty, notice, footer, rowProps }: DataTableProps<T>) {
  if (loading) return <Loading />;
  if (error) return <div className="card-body"><ErrorNotice error={error} /></div>;
  if (!rows?.length) return <>{empty ?? null}</>;
  return (
    <>
      {notice && <div className="card-body stack-sm">{notice}</div>}
      <div className="table-wrap">
        <table>
          <caption className="visually-hidden">{label}</caption>
          <thead>
            <tr>
              {columns.map((c) => (
                <th key={c.header} className={classes(c.numeric && 'num', c.hideOnPhone && 'hide-sm')}>
                  {c.actions ? <span className="visually-hidden">{c.header}</span> : c.header}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((row, i) => (
              <tr key={rowKey(row, i)} {...rowProps?.(row, i)}>
                {columns.map((c) => (
                  <td key={c.header} className={classes(c.className, c.actions && 'actions-cell', c.numeric && 'num', c.hideOnPhone && 'hide-sm')}>
                    {c.cell(row, i)}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {footer}
    </>
  );
}
