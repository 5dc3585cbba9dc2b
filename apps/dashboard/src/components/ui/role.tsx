export const roleLabel = (role: string) => (role === 'project_admin' ? 'Project admin' : 'Team member');

/** A member's role in a project, and whether they own it. */
export function RoleBadges({ role, isOwner }: { role: string; isOwner: boolean }) {
  return (
    <>
      <span className={`badge ${role === 'project_admin' ? 'badge-info' : ''}`}>{roleLabel(role)}</span> {isOwner && <span className="badge">Owner</span>}
    </>
  );
}
