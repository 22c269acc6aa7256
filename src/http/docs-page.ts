// The API reference page, served whole by the control plane: Swagger UI's files from the pinned
// `swagger-ui-dist` package, read once at start, and a page that loads them and the OpenAPI document
// from this origin only, so the page works offline and nothing it shows leaves the machine.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { Elysia } from 'elysia';

export interface DocsPageOptions {
  /** Where the page is served, e.g. `/api/v1/docs`; its files are served below it. */
  path: string;
  /** The OpenAPI document's absolute path, e.g. `/api/v1/docs/json`. */
  specPath: string;
  /** The page's title (the document's `info.title`). */
  title: string;
  /** The OpenAPI document, built on its first request once every route is registered, then served as is. */
  document: () => object;
}

interface Asset {
  name: string;
  type: string;
  body: Uint8Array;
  etag: string;
  gzipped?: Uint8Array;
}

// The page runs our own scripts and Swagger UI's styles only; Swagger UI draws its icons as data:
// URIs. `connect-src 'self'`: the document and "Try it out" calls go to this origin only.
const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const digestOf = (body: Uint8Array | string) => createHash('sha256').update(body).digest('hex');

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** A file of the package, without its source-map comment: the maps are not served. */
function packageFile(directory: string, name: string): Uint8Array {
  const body = readFileSync(join(directory, name));
  if (!/\.(js|css)$/.test(name)) return body;
  return new TextEncoder().encode(body.toString('utf8').replace(/\n?\/[/*]# sourceMappingURL=\S+?(\s*\*\/)?\s*$/, '\n'));
}

function asset(name: string, type: string, body: Uint8Array | string): Asset {
  const bytes = typeof body === 'string' ? new TextEncoder().encode(body) : body;
  return { name, type, body: bytes, etag: `"${digestOf(bytes).slice(0, 32)}"` };
}

/**
 * Swagger UI's configuration, as a script of its own (the page allows no inline script). The
 * document's URL is absolute: a relative one resolves against the page's own path.
 */
const initScript = (specPath: string) => `// Starts Swagger UI on this platform's OpenAPI document.
window.ui = SwaggerUIBundle(${JSON.stringify({
  url: specPath,
  dom_id: '#swagger-ui',
  deepLinking: true,
  // Swagger UI would otherwise send the document's URL to validator.swagger.io for a badge.
  validatorUrl: null,
  layout: 'BaseLayout',
})});
`;

/**
 * The docs page at `path` and its files at `path/assets/<digest>/<file>`: the digest changes with
 * any file, so the files are cached for good and the page (never cached) always names fresh ones.
 * Public, like the document: the page needs no credential. Mount after `@elysiajs/swagger`, whose
 * own page (scripts from a CDN) and document this one replaces at the same paths.
 */
export function docsPage(options: DocsPageOptions) {
  const directory = dirname(fileURLToPath(import.meta.resolve('swagger-ui-dist/package.json')));
  const files = [
    asset('swagger-ui.css', 'text/css; charset=utf-8', packageFile(directory, 'swagger-ui.css')),
    asset('index.css', 'text/css; charset=utf-8', packageFile(directory, 'index.css')),
    asset('swagger-ui-bundle.js', 'text/javascript; charset=utf-8', packageFile(directory, 'swagger-ui-bundle.js')),
    asset('docs.js', 'text/javascript; charset=utf-8', initScript(options.specPath)),
    asset('favicon-32x32.png', 'image/png', packageFile(directory, 'favicon-32x32.png')),
  ];
  const version = digestOf(files.map((file) => file.etag).join()).slice(0, 16);
  const base = `${options.path}/assets/${version}`;
  const url = (name: string) => `${base}/${name}`;
  const page = asset(
    'index.html',
    'text/html; charset=utf-8',
    `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(options.title)}</title>
<link rel="icon" type="image/png" href="${url('favicon-32x32.png')}">
<link rel="stylesheet" href="${url('swagger-ui.css')}">
<link rel="stylesheet" href="${url('index.css')}">
</head>
<body>
<div id="swagger-ui"></div>
<script src="${url('swagger-ui-bundle.js')}"></script>
<script src="${url('docs.js')}"></script>
</body>
</html>
`,
  );

  const pageHeaders = { 'cache-control': 'no-cache', 'content-security-policy': CONTENT_SECURITY_POLICY, 'referrer-policy': 'no-referrer' };
  const assetHeaders = { 'cache-control': 'public, max-age=31536000, immutable' };
  const app = new Elysia({ name: 'docs-page', seed: options.path }).get(options.path, ({ request }) => reply(request, page, pageHeaders), { detail: { hide: true } });
  for (const file of files) app.get(url(file.name), ({ request }) => reply(request, file, assetHeaders), { detail: { hide: true } });
  let document: Asset | undefined;
  app.get(options.specPath, ({ request }) => reply(request, (document ??= asset('openapi.json', 'application/json; charset=utf-8', JSON.stringify(options.document()))), { 'cache-control': 'no-cache' }), {
    detail: { hide: true },
  });
  return app;
}

/**
 * The file, gzipped when the client takes it (compressed once, on first demand; its own ETag, as
 * another representation), or 304 when the client's copy is that representation.
 */
function reply(request: Request, file: Asset, extra: Record<string, string>): Response {
  const gzip = file.body.byteLength > 1024 && /\bgzip\b/.test(request.headers.get('accept-encoding') ?? '');
  const etag = gzip ? `${file.etag.slice(0, -1)}-gzip"` : file.etag;
  const headers: Record<string, string> = { 'content-type': file.type, etag, vary: 'accept-encoding', 'x-content-type-options': 'nosniff', ...extra };
  if (gzip) headers['content-encoding'] = 'gzip';
  if (request.headers.get('if-none-match')?.split(/\s*,\s*/).includes(etag)) return new Response(null, { status: 304, headers });
  if (!gzip) return new Response(file.body, { headers });
  file.gzipped ??= gzipSync(file.body);
  return new Response(file.gzipped, { headers });
}
