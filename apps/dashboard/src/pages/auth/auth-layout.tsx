import type { ReactNode } from 'react';
import { Brand } from '../../components/layout';

export function AuthLayout({ title, lead, children, foot }: { title: string; lead?: ReactNode; children: ReactNode; foot?: ReactNode }) {
  return (
    <main className="auth" id="main">
      <div className="auth-card">
        <Brand />
        <div className="card">
          <div className="card-body stack">
            <div>
              <h1>{title}</h1>
              {lead && <p className="lead">{lead}</p>}
            </div>
            {children}
          </div>
        </div>
        {foot && <p className="auth-foot">{foot}</p>}
      </div>
    </main>
  );
}

/** Where to go after signing in: the page the user was sent away from, if it is one of ours. */
export function nextPath(params: URLSearchParams) {
  const next = params.get('next');
  return next && next.startsWith('/') && !next.startsWith('//') ? next : '/';
}
