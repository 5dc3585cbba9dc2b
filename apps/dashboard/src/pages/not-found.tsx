import { Link } from 'react-router';
import { EmptyState } from '../components/ui';

export function NotFoundPage() {
  return (
    <main className="main narrow" id="main">
      <EmptyState title="This page does not exist" action={<Link to="/">Go to your projects</Link>} />
    </main>
  );
}
