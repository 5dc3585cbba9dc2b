import { existsSync } from 'node:fs';
import path from 'node:path';
import express, { type IRouter, type RequestHandler } from 'express';
import { localPageCsp } from '../http/csp';

/** The dashboard's build (`apps/dashboard`, built by `pnpm build`), from both src/ and dist/. */
export const DASHBOARD_DIR = path.resolve(__dirname, '../../../dashboard/dist');

/** The dashboard also shows data: and blob: images (previews built in the browser). */
const dashboardCsp = localPageCsp(['data:', 'blob:']);

/**
 * Serves the dashboard's static files, and its `index.html` for any other GET a browser makes for a
 * page (`/accept-invite?token=…` and `/reset-password?token=…` are the e-mails' links), so that the
 * client-side router decides. Mounted after every API route: an API path is never shadowed, and a
 * client that asks for JSON (any API client, curl's `*\/*`) still gets the JSON 404 for an unknown
 * path. Without a build (the API alone, e.g. in tests of other modules) nothing is mounted.
 */
export function mountDashboard(router: IRouter, dir = DASHBOARD_DIR): boolean {
  const index = path.join(dir, 'index.html');
  if (!existsSync(index)) return false;
  // File names under assets/ carry a content hash.
  router.use('/assets', dashboardCsp, express.static(path.join(dir, 'assets'), { immutable: true, maxAge: '1y', index: false, fallthrough: true }));
  router.use(dashboardCsp, express.static(dir, { index: false, maxAge: 0 }));
  // Middleware rather than a route: a request that falls through stays unmatched for the metrics, and
  // the API document lists API routes only.
  const page: RequestHandler = (req, res, next) => {
    if ((req.method !== 'GET' && req.method !== 'HEAD') || req.accepts(['json', 'html']) !== 'html') return next();
    dashboardCsp(req, res, () => {
      res.set('Cache-Control', 'no-cache');
      res.sendFile('index.html', { root: dir });
    });
  };
  router.use(page);
  return true;
}
