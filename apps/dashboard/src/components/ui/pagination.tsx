import { Button } from './button';

export function Pagination({ page, totalPages, total, onPage, noun }: { page: number; totalPages: number; total: number; onPage: (p: number) => void; noun: string }) {
  if (total === 0) return null;
  return (
    <nav className="pagination" aria-label={`${noun} pages`}>
      <span>
        Page {page} of {Math.max(totalPages, 1)} · {total} {noun}
      </span>
      <div className="actions">
        <Button size="sm" onClick={() => onPage(page - 1)} disabled={page <= 1}>
          Previous
        </Button>
        <Button size="sm" onClick={() => onPage(page + 1)} disabled={page >= totalPages}>
          Next
        </Button>
      </div>
    </nav>
  );
}
