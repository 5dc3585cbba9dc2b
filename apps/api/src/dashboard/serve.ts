import { existsSync } from 'node:fs';
import path from 'node:path';
import express, { type IRouter, type RequestHandler } from 'express';
import helmet from 'helmet';

/** The dashboard's build (`apps/dashboard`, built by `pnpm build`), from both src/ and dist/. */
export const DASHBOARD_DIR = path.resolve(__dirname, '../../../dashboard/dist');

/**
 * Serves the dashboard's static files, and its `index.html` for any other GET a browser makes for a
 * page (`/accept-invite?token=…` and `/reset-password?token=…` are the e-mails' links), so that the
 * client-side router decides. Mounted after every API route: an API path is never shadowed, and a
 * client that asks for JSON (any API client, curl's `*\/*`) still gets the JSON 404 for an unknown
 * path. Without a build (the API alone, e.g. in tests of other modules) nothing is mounted.
 */
/**
 * Helmet's default policy without `upgrade-insecure-requests` (an instance served over plain HTTP
 * inside a network would have its own scripts upgraded to an HTTPS that does not exist). Scripts come
 * from this origin only; styles may be inline because the dialogs insert a <style> element.
 */
const dashboardCsp = helmet.contentSecurityPolicy({
  useDefaults: false,
  directives: {
    defaultSrc: ["'self'"],
    baseUri: ["'self'"],
    connectSrc: ["'self'"],
    fontSrc: ["'self'", 'data:'],
    formAction: ["'self'"],
    frameAncestors: ["'self'"],
    imgSrc: ["'self'", 'data:', 'blob:'],
    objectSrc: ["'none'"],
    scriptSrc: ["'self'"],
    scriptSrcAttr: ["'none'"],
    styleSrc: ["'self'", "'unsafe-inline'"],
  },
});

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
