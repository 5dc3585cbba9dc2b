import helmet from 'helmet';

/**
 * The Content-Security-Policy of the pages the API serves itself (the dashboard, the API docs):
 * Helmet's default policy without `upgrade-insecure-requests` (a self-hosted instance on plain HTTP
 * inside a network would have its own scripts upgraded to an HTTPS that does not exist) and without
 * `https:` sources for styles and fonts (everything is local). Scripts come from this origin only;
 * styles may be inline because the pages insert <style> elements. `imgSrc` adds sources to `'self'`.
 */
export function localPageCsp(imgSrc: string[]) {
  return helmet.contentSecurityPolicy({
    useDefaults: false,
    directives: {
      defaultSrc: ["'self'"],
      baseUri: ["'self'"],
      connectSrc: ["'self'"],
      fontSrc: ["'self'", 'data:'],
      formAction: ["'self'"],
      frameAncestors: ["'self'"],
      imgSrc: ["'self'", ...imgSrc],
      objectSrc: ["'none'"],
      scriptSrc: ["'self'"],
      scriptSrcAttr: ["'none'"],
      styleSrc: ["'self'", "'unsafe-inline'"],
    },
  });
}
