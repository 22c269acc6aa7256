// HTTP routes of Components and their deployments (DESIGN §7), mounted under /api/v1.
import { ComponentJson, DeploymentJson, RevisionApprovalsJson, RevisionJson, ComponentProjection, RevisionProjection, DeploymentProjection } from './responses.ts';
import { Elysia } from 'elysia';
import { type httpConventions, operation } from '../http/index.ts';
import { ComponentCreateBody, ComponentUpdateBody, DeploymentCreateBody } from './schema.ts';
import { componentJson, deploymentJson, etagOf, revisionJson } from './json.ts';
import { READ_ROLES, WRITE_ROLES } from './access.ts';
import type { ComponentService } from './service.ts';
import type { DeploymentService } from './deployments.ts';

const read = { auth: { roles: READ_ROLES } };
const write = { auth: { roles: WRITE_ROLES } };
const tag = 'Components';
const deployTag = 'Component deployments';

export interface ComponentRouteDeps {
  components: ComponentService;
  deployments: DeploymentService;
}

export function componentRoutes(conventions: ReturnType<typeof httpConventions>, { components, deployments }: ComponentRouteDeps) {
  return new Elysia({ name: 'component-routes' })
    .use(conventions)
    .post('/components', async ({ body, principal, set }) => {
      const view = await components.create(principal, body);
      set.status = 201;
      set.headers.etag = etagOf(view.component.version);
      return componentJson(view);
    }, {
      ...write,
      ...operation({
        operationId: 'createComponent',
        errors: ['SOURCE_INVALID'],
        summary: 'Create a Component',
        etag: true,
        tag,
        description:
          'Kinds: `lowcode` (`elements`), `node` (`source`, optional `results`), `json-validator` (`schema`). ' +
          'The source is checked (422 SOURCE_INVALID with line and column). Revision 1 is active at once, except for `node`, whose revisions wait for a deployment.',
        body: ComponentCreateBody,
        responses: { 201: ComponentJson },
      }),
    })
    .get('/components', ({ principal, request }) => components.list(principal, new URL(request.url).search), {
      ...read,
      ...operation({ operationId: 'listComponents', summary: 'List Components (list engine)', tag, list: ComponentProjection }),
    })
    .get('/components/:componentId', async ({ params, principal, set }) => {
      const view = await components.get(principal, params.componentId);
      set.headers.etag = etagOf(view.component.version);
      return componentJson(view);
    }, { ...read, ...operation({ operationId: 'getComponent', summary: 'Get a Component', tag, ids: ['componentId'], responses: { 200: ComponentJson }, etag: true }) })
    .patch('/components/:componentId', async ({ params, principal, body, request, set }) => {
      const view = await components.update(principal, params.componentId, body, request.headers.get('if-match'));
      set.headers.etag = etagOf(view.component.version);
      return componentJson(view);
    }, {
      ...write,
      ...operation({
        operationId: 'updateComponent',
        summary: 'Update a Component',
        ids: ['componentId'],
        headers: ['If-Match'],
        etag: true,
        tag,
        description:
          'Changed content saves a new immutable revision; content equal to the latest revision saves none. ' +
          'Optimistic locking through `version` (409 VERSION_CONFLICT) or `If-Match` (412).',
        body: ComponentUpdateBody,
        responses: { 200: ComponentJson },
        errors: ['VERSION_CONFLICT', 'PRECONDITION_FAILED', 'SOURCE_INVALID'],
      }),
    })
    .delete('/components/:componentId', async ({ params, principal, request, set }) => {
      await components.delete(principal, params.componentId, request.headers.get('if-match'));
      set.status = 204;
    }, {
      ...write,
      ...operation({
        operationId: 'deleteComponent',
        summary: 'Delete a Component',
        ids: ['componentId'],
        headers: ['If-Match'],
        tag,
        description: 'Refused with 409 COMPONENT_IN_USE, naming the dependents, while an active Endpoint or an agent plugin uses it.',
        responses: { 204: 'Deleted' },
        errors: ['COMPONENT_IN_USE', 'PRECONDITION_FAILED'],
      }),
    })
    .get('/components/:componentId/revisions', ({ params, principal, request }) =>
      components.revisionList(principal, params.componentId, new URL(request.url).search), {
      ...read,
      ...operation({ operationId: 'listComponentRevisions', summary: 'List the revisions of a Component, newest first (list engine)', tag, ids: ['componentId'], list: RevisionProjection }),
    })
    .get('/components/:componentId/revisions/:revisionId', async ({ params, principal }) =>
      revisionJson(await components.revision(principal, params.componentId, params.revisionId)), {
      ...read,
      ...operation({ operationId: 'getComponentRevision', summary: 'Get a revision', tag, ids: ['componentId', 'revisionId'], responses: { 200: RevisionJson } }),
    })
    .get('/components/:componentId/revisions/:revisionId/approval', ({ params, principal }) =>
      components.approval(principal, params.componentId, params.revisionId), {
      ...read,
      ...operation({
        operationId: 'getRevisionApprovals',
        summary: 'The approvals of a revision: for which service accounts it may run',
        ids: ['componentId', 'revisionId'],
        tag,
        responses: { 200: RevisionApprovalsJson },
      }),
    })
    .post('/components/:componentId/revisions/:revisionId/approve', ({ params, principal }) =>
      components.approve(principal, params.componentId, params.revisionId), {
      ...write,
      ...operation({
        operationId: 'approveRevision',
        summary: 'Approve a revision to run as the service accounts your rights cover',
        ids: ['componentId', 'revisionId'],
        tag,
        description: 'A revision runs as a service account only when approved by a principal who held every role of the account (ENDPOINT_INVOKE aside; INSTANCE_ADMIN holds all) and belonged to every workspace of it: saving a revision is its author\'s approval, activating a deployment the activator\'s, and this call the caller\'s (never from inside an execution: 403). Until then an Endpoint executing as the account keeps running the newest lowcode revision approved for it, else answers 403 REVISION_NOT_APPROVED. Approving twice changes nothing.',
        responses: { 200: RevisionApprovalsJson },
      }),
    })
    .post('/components/:componentId/deployments', async ({ params, principal, body, set }) => {
      const deployment = await deployments.start(principal, params.componentId, body);
      set.status = 202;
      return deploymentJson(deployment);
    }, {
      ...write,
      ...operation({
        operationId: 'deployComponent',
        errors: ['CONFLICT'],
        summary: 'Deploy a node revision',
        ids: ['componentId'],
        tag: deployTag,
        description: 'Starts an attempt (`building`) that transpiles and loads the module in the sandbox and ends `ready` or `failed`. A ready revision is not used until activated.',
        body: DeploymentCreateBody,
        responses: { 202: DeploymentJson },
      }),
    })
    .get('/components/:componentId/deployments', ({ params, principal, request }) =>
      deployments.list(principal, params.componentId, new URL(request.url).search), {
      ...read,
      ...operation({ operationId: 'listComponentDeployments', summary: 'List deployment attempts, newest first (list engine)', tag: deployTag, ids: ['componentId'], list: DeploymentProjection }),
    })
    .get('/components/:componentId/deployments/:deploymentId', async ({ params, principal }) =>
      deploymentJson(await deployments.get(principal, params.componentId, params.deploymentId)), {
      ...read,
      ...operation({ operationId: 'getComponentDeployment', summary: 'Get a deployment attempt', tag: deployTag, ids: ['componentId', 'deploymentId'], responses: { 200: DeploymentJson } }),
    })
    .post('/components/:componentId/deployments/:deploymentId/activate', async ({ params, principal }) =>
      deploymentJson(await deployments.activate(principal, params.componentId, params.deploymentId)), {
      ...write,
      ...operation({
        operationId: 'activateComponentDeployment',
        summary: 'Activate a ready deployment (rollback: activate an earlier one)',
        ids: ['componentId', 'deploymentId'],
        tag: deployTag,
        description: 'Selects the attempt\'s revision as the one node Endpoints run. 409 DEPLOYMENT_NOT_READY unless the attempt is ready.',
        responses: { 200: DeploymentJson },
        errors: ['DEPLOYMENT_NOT_READY'],
      }),
    });
}
