// The docs page is served whole by the control plane (issue #24 point 1): its HTML names files of
// this origin only, each served without a credential with its type and for-good caching.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { gunzipSync } from 'node:zlib';
import { startTestPlatform, type TestPlatform } from '../helpers/platform.ts';

let p: TestPlatform;
beforeAll(async () => {
  p = await startTestPlatform();
});
afterAll(() => p.close());

const TYPES: Record<string, string> = { js: 'text/javascript; charset=utf-8', css: 'text/css; charset=utf-8', png: 'image/png' };

/** Every URL the page's markup names (src and href attributes). */
const referencesOf = (html: string) => [...html.matchAll(/\b(?:src|href)="([^"]*)"/g)].map((m) => m[1]!);

describe('the docs page', () => {
  test('is public HTML with a CSP, naming no other origin: only files below /api/v1/docs/', async () => {
    const r = await p.call('GET', '/api/v1/docs', { key: null });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(r.headers.get('cache-control')).toBe('no-cache');
    expect(r.headers.get('x-content-type-options')).toBe('nosniff');
    expect(r.headers.get('x-svc-oid')).toBeTruthy();
    const csp = r.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    const html = await r.text();
    expect(html).toContain('<title>API Platform control plane</title>');
    expect(html).not.toMatch(/https?:\/\//);
    expect(html).not.toMatch(/<script>|<style|\son\w+=/); // nothing inline the CSP would have to allow
    const references = referencesOf(html);
    expect(references.length).toBe(5);
    for (const reference of references) expect(reference).toMatch(/^\/api\/v1\/docs\/assets\/[0-9a-f]{16}\/[\w.-]+$/);
  });

  test('each file it names answers 200 without a credential, with its content type and immutable caching', async () => {
    const html = await (await p.call('GET', '/api/v1/docs', { key: null })).text();
    const names: string[] = [];
    for (const reference of referencesOf(html)) {
      const r = await p.call('GET', reference, { key: null });
      expect({ reference, status: r.status }).toEqual({ reference, status: 200 });
      expect(r.headers.get('content-type')).toBe(TYPES[reference.split('.').pop()!]!);
      expect(r.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(r.headers.get('x-content-type-options')).toBe('nosniff');
      const body = new Uint8Array(await r.arrayBuffer());
      expect(body.byteLength).toBeGreaterThan(0);
      names.push(reference.split('/').pop()!);
      if (reference.endsWith('.css')) {
        // No stylesheet loads anything (a font, an image) from elsewhere: only data: URIs.
        const css = new TextDecoder().decode(body);
        expect(css).not.toMatch(/@import|url\(\s*['"]?(https?:)?\/\//);
        expect(css).not.toContain('sourceMappingURL');
      }
    }
    expect(names.sort()).toEqual(['docs.js', 'favicon-32x32.png', 'index.css', 'swagger-ui-bundle.js', 'swagger-ui.css']);
  });

  test('Swagger UI is started on the absolute document URL, with no validator badge from elsewhere', async () => {
    const html = await (await p.call('GET', '/api/v1/docs', { key: null })).text();
    const script = referencesOf(html).find((reference) => reference.endsWith('/docs.js'))!;
    const code = await (await p.call('GET', script, { key: null })).text();
    expect(code).toContain('"url":"/api/v1/docs/json"');
    expect(code).toContain('"validatorUrl":null');
    const bundle = referencesOf(html).find((reference) => reference.endsWith('/swagger-ui-bundle.js'))!;
    expect(await (await p.call('GET', bundle, { key: null })).text()).toContain('SwaggerUIBundle');
    // The document it names is public too.
    const doc = await p.json<{ info: { title: string } }>('GET', '/api/v1/docs/json', { key: null });
    expect(doc.status).toBe(200);
    expect(doc.body.info.title).toBe('API Platform control plane');
  });

  test('files are gzipped when the client takes it, and a fresh copy is 304', async () => {
    const html = await (await p.call('GET', '/api/v1/docs', { key: null })).text();
    const bundle = referencesOf(html).find((reference) => reference.endsWith('/swagger-ui-bundle.js'))!;
    const plain = await p.call('GET', bundle, { key: null });
    const plainBody = new Uint8Array(await plain.arrayBuffer());
    expect(plain.headers.get('content-encoding')).toBeNull();
    const zipped = await p.call('GET', bundle, { key: null, headers: { 'accept-encoding': 'gzip, deflate, br' } });
    expect(zipped.headers.get('content-encoding')).toBe('gzip');
    expect(zipped.headers.get('vary')).toBe('accept-encoding');
    const zippedBody = new Uint8Array(await zipped.arrayBuffer());
    expect(zippedBody.byteLength).toBeLessThan(plainBody.byteLength / 2);
    expect(new Uint8Array(gunzipSync(zippedBody))).toEqual(plainBody);
    expect(zipped.headers.get('etag')).not.toBe(plain.headers.get('etag'));
    for (const [response, encoding] of [[plain, 'identity'], [zipped, 'gzip']] as const) {
      const again = await p.call('GET', bundle, { key: null, headers: { 'if-none-match': response.headers.get('etag')!, 'accept-encoding': encoding } });
      expect(again.status).toBe(304);
      expect(await again.text()).toBe('');
    }
  });

  test('a file of another version is not served, and the rest of /api/ still needs a credential', async () => {
    expect((await p.call('GET', '/api/v1/docs/assets/0000000000000000/swagger-ui-bundle.js', { key: null })).status).toBe(401);
    expect((await p.call('GET', '/api/v1/agents', { key: null })).status).toBe(401);
  });
});
