// The component routes document themselves: mounted like the control plane mounts them, with the
// swagger plugin, the generated OpenAPI 3.1 document is valid and names every component operation.
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { Elysia } from 'elysia';
import { swagger } from '@elysiajs/swagger';
import SwaggerParser from '@apidevtools/swagger-parser';
import { documentComponents } from '../../src/http/index.ts';
import { componentResponseSchemas, componentRoutes } from '../../src/components/index.ts';
import { startComponentHarness, type ComponentHarness } from './harness.ts';

let h: ComponentHarness;
beforeAll(async () => {
  h = await startComponentHarness({ name: 'sqlite', env: { DATABASE_URL: 'sqlite::memory:' } });
});
afterAll(() => h.close());

test('the OpenAPI document with the component routes is valid 3.1', async () => {
  const { conventions } = h;
  const app = new Elysia({ normalize: false })
    .use(conventions)
    .use(swagger({
      path: '/docs',
      specPath: '/docs/json',
      documentation: {
        openapi: '3.1.0',
        info: { title: 't', version: '1' },
        components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } }, ...(documentComponents(componentResponseSchemas) as object) },
      },
    }))
    .group('/api/v1', (api) => api.use(componentRoutes(conventions, { components: h.components, deployments: h.deployments })));
  const doc = (await (await app.handle(new Request('http://localhost/docs/json'))).json()) as { paths: Record<string, Record<string, { requestBody?: unknown }>> };
  await SwaggerParser.validate(structuredClone(doc) as unknown as Parameters<typeof SwaggerParser.validate>[0]);
  expect(Object.keys(doc.paths).sort()).toEqual([
    '/api/v1/components',
    '/api/v1/components/{componentId}',
    '/api/v1/components/{componentId}/deployments',
    '/api/v1/components/{componentId}/deployments/{deploymentId}',
    '/api/v1/components/{componentId}/deployments/{deploymentId}/activate',
    '/api/v1/components/{componentId}/revisions',
    '/api/v1/components/{componentId}/revisions/{revisionId}',
    '/api/v1/components/{componentId}/revisions/{revisionId}/approval',
    '/api/v1/components/{componentId}/revisions/{revisionId}/approve',
  ]);
  expect(doc.paths['/api/v1/components']!.post!.requestBody).toBeDefined();
});
