import { useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { Link, Navigate, NavLink, Outlet, useLocation, useNavigate, useOutletContext, useParams } from 'react-router';
import { publicApi, session } from '../api/client';
import { useMe, useProject, type Schemas } from '../api/hooks';
import { Button } from './ui/button';
import { EmptyState, ErrorNotice, Loading } from './ui/notices';

export const Brand = () => (
  <Link to="/" className="brand">
    <span className="brand-mark" aria-hidden="true">H</span>
    <span className="brand-name">Herald</span>
  </Link>
);

const here = (l: { pathname: string; search: string }) => l.pathname + l.search;

/**
 * Pages behind sign-in. When the session ends (signed out here, or its refresh token refused), the
 * user goes to sign-in, which brings them back to this page afterwards.
 */
export function RequireSession() {
  const location = useLocation();
  const navigate = useNavigate();
  const qc = useQueryClient();
  useEffect(
    () =>
      session.subscribe((event) => {
        if (event !== 'signed-out' && event !== 'expired') return;
        const next = here(window.location);
        navigate(event === 'expired' ? `/signin?expired=1&next=${encodeURIComponent(next)}` : '/signin', { replace: true });
        qc.clear();
      }),
    [navigate, qc],
  );
  if (!session.signedIn) return <Navigate to={location.pathname === '/' ? '/signin' : `/signin?next=${encodeURIComponent(here(location))}`} replace />;
  return <Outlet />;
}

export async function signOut() {
  const refreshToken = session.refreshToken;
  session.end('signed-out');
  if (refreshToken) await publicApi.POST('/auth/logout', { body: { refreshToken } }).catch(() => undefined);
}

export function AppShell() {
  const me = useMe();
  const { projectId } = useParams();
  const { project } = useProject(projectId ?? '');
  return (
    <>
      <a className="visually-hidden" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <Brand />
        {projectId && (
          <div className="topbar-project">
            <span aria-hidden="true">/</span>
            <strong>{project?.name ?? '…'}</strong>
            <Link to="/" className="small topbar-all">
              All projects
            </Link>
          </div>
        )}
        <div className="topbar-spacer" />
        <div className="topbar-user">
          <span className="topbar-email">{me.data?.email}</span>
          <Link to="/account" className="btn btn-sm btn-ghost">
            Account
          </Link>
          <Button size="sm" onClick={() => void signOut()}>
            Sign out
          </Button>
        </div>
      </header>
      <Outlet />
    </>
  );
}

export interface ProjectContext {
  projectId: string;
  project: Schemas['ProjectMembership'];
  isAdmin: boolean;
  isOwner: boolean;
}
export const useProjectContext = () => useOutletContext<ProjectContext>();

const NAV = [
  ['', 'Overview'],
  ['send', 'Send a test push'],
  ['broadcast', 'Broadcast'],
  ['notifications', 'Notifications'],
  ['templates', 'Templates'],
  ['devices', 'Devices'],
  ['segments', 'Segments'],
  ['providers', 'Push providers'],
  ['keys', 'API keys'],
  ['team', 'Team'],
  ['audit-log', 'Audit log'],
  ['settings', 'Settings'],
] as const;

export function ProjectLayout() {
  const { projectId = '' } = useParams();
  const { project, isAdmin, isOwner, isLoading, error } = useProject(projectId);
  let content;
  if (isLoading) content = <Loading />;
  else if (error) content = <ErrorNotice error={error} />;
  else if (!project) content = <EmptyState title="Project not found" action={<Link to="/">Back to your projects</Link>}>It does not exist, or you are not a member of it.</EmptyState>;
  else content = <Outlet context={{ projectId, project, isAdmin, isOwner } satisfies ProjectContext} />;
  return (
    <div className="layout">
      <nav className="sidenav" aria-label="Project">
        <div className="sidenav-label">Project</div>
        <ul>
          {NAV.map(([path, label]) => (
            <li key={path}>
              <NavLink to={`/p/${projectId}${path ? `/${path}` : ''}`} end={path === ''}>
                {label}
              </NavLink>
            </li>
          ))}
        </ul>
      </nav>
      <main className="main" id="main">
        {content}
      </main>
    </div>
  );
}
