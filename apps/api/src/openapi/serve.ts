import path from 'node:path';
import type { IRouter, RequestHandler } from 'express';
import type { OpenAPIV3_1 } from 'openapi-types';
import { localPageCsp } from '../http/csp';
import { DOCS_PATH, OPENAPI_PATH } from './document';

/** Swagger UI's own build (swagger-ui-dist): served from this package, never from a CDN. */
const SWAGGER_UI_DIR = path.dirname(require.resolve('swagger-ui-dist/package.json'));
const ASSETS = new Set(['swagger-ui.css', 'swagger-ui-bundle.js', 'favicon-32x32.png', 'favicon-16x16.png']);
const INIT_SCRIPT = 'herald-docs.js';

/** Relative URLs throughout, so that the page also works behind a proxy that mounts Herald under a prefix. */
const PAGE = `<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Herald API reference</title>
  <link rel="stylesheet" href="swagger-ui.css">
  <link rel="icon" type="image/png" href="favicon-32x32.png" sizes="32x32">
  <link rel="icon" type="image/png" href="favicon-16x16.png" sizes="16x16">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="swagger-ui-bundle.js"></script>
  <script src="${INIT_SCRIPT}"></script>
</body>
</html>
`;

const INIT = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: new URL('..${OPENAPI_PATH}', window.location.href).href,
    dom_id: '#swagger-ui',
    deepLinking: true,
    persistAuthorization: true,
    tryItOutEnabled: false,
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout'
  });
});
`;

const docsCsp = localPageCsp(['data:']);

/**
 * `GET /openapi.json` (the document, built once on first request) and `GET /docs` (Swagger UI over
 * it, with its assets under `/docs/`). Outside the route builder: no auth, no validation.
 */
export function mountApiDocs(router: IRouter, document: () => OpenAPIV3_1.Document) {
  let cached: OpenAPIV3_1.Document | undefined;
  router.get(OPENAPI_PATH, (_req, res) => {
    cached ??= document();
    res.json(cached);
  });

  const page: RequestHandler = (req, res) => {
    // The page's relative URLs need the trailing slash.
    if (!req.path.endsWith('/')) return void res.redirect(301, `${path.posix.basename(req.path)}/`);
    res.type('html').send(PAGE);
  };
  const asset: RequestHandler = (req, res, next) => {
    const name = String(req.params.asset);
    if (name === INIT_SCRIPT) return void res.type('application/javascript').send(INIT);
    if (!ASSETS.has(name)) return next();
    // `root`: the package lives under node_modules/.pnpm, and send refuses dot-directories in a full path.
    res.sendFile(name, { root: SWAGGER_UI_DIR, maxAge: '1d' });
  };
  router.get(DOCS_PATH, docsCsp, page);
  router.get(`${DOCS_PATH}/:asset`, docsCsp, asset);
}
