import { createBrowserRouter } from 'react-router';
import { AppShell, ProjectLayout, RequireSession } from './components/layout';
import { AcceptInvitePage } from './pages/auth/accept-invite';
import { AccountPage } from './pages/auth/account';
import { ForgotPasswordPage, ResetPasswordPage } from './pages/auth/password';
import { SignInPage, SignUpPage } from './pages/auth/sign-in';
import { ApiKeysPage } from './pages/keys';
import { AuditLogPage } from './pages/audit-log';
import { BroadcastPage } from './pages/broadcast';
import { NotFoundPage } from './pages/not-found';
import { NotificationPage, NotificationsPage } from './pages/notifications';
import { OverviewPage } from './pages/overview';
import { ProjectsPage } from './pages/projects';
import { ProvidersPage } from './pages/providers';
import { DevicesPage } from './pages/devices';
import { SegmentsPage } from './pages/segments';
import { SendPage } from './pages/send';
import { SettingsPage } from './pages/settings';
import { TeamPage } from './pages/team';
import { TemplateEngagementPage } from './pages/template-engagement';
import { TemplateEditorPage, TemplatesPage } from './pages/templates';

/** One route table. Client paths never collide with the API's (those are served before this page). */
export const router = createBrowserRouter([
  { path: '/signin', element: <SignInPage /> },
  { path: '/signup', element: <SignUpPage /> },
  { path: '/forgot-password', element: <ForgotPasswordPage /> },
  { path: '/reset-password', element: <ResetPasswordPage /> },
  { path: '/accept-invite', element: <AcceptInvitePage /> },
  {
    element: <RequireSession />,
    children: [
      {
        element: <AppShell />,
        children: [
          { path: '/', element: <ProjectsPage /> },
          { path: '/account', element: <AccountPage /> },
          {
            path: '/p/:projectId',
            element: <ProjectLayout />,
            children: [
              { index: true, element: <OverviewPage /> },
              { path: 'send', element: <SendPage /> },
              { path: 'broadcast', element: <BroadcastPage /> },
              { path: 'notifications', element: <NotificationsPage /> },
              { path: 'notifications/:notificationId', element: <NotificationPage /> },
              { path: 'templates', element: <TemplatesPage /> },
              { path: 'templates/new', element: <TemplateEditorPage /> },
              { path: 'templates/:templateId', element: <TemplateEditorPage /> },
              { path: 'templates/:templateId/engagement', element: <TemplateEngagementPage /> },
              { path: 'devices', element: <DevicesPage /> },
              { path: 'segments', element: <SegmentsPage /> },
              { path: 'providers', element: <ProvidersPage /> },
              { path: 'keys', element: <ApiKeysPage /> },
              { path: 'team', element: <TeamPage /> },
              { path: 'audit-log', element: <AuditLogPage /> },
              { path: 'settings', element: <SettingsPage /> },
            ],
          },
          { path: '*', element: <NotFoundPage /> },
        ],
      },
    ],
  },
]);
