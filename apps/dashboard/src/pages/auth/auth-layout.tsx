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
