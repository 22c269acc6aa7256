// Node deployments through the control plane of a test stack: deploy, wait for the build, activate.
import { expect } from 'bun:test';
import type { Stack } from './stack.ts';

/** Deploys a revision and waits for the attempt to be ready; returns the deployment id. */
export async function deployed(s: Stack, componentId: string, revisionId: string): Promise<string> {
  const dep = await s.api('POST', `/api/v1/components/${componentId}/deployments`, { revisionId });
  expect(dep.status).toBe(202);
  let status = dep.body.status;
  for (let i = 0; i < 100 && status === 'building'; i++) {
    await Bun.sleep(50);
    status = (await s.api('GET', `/api/v1/components/${componentId}/deployments/${dep.body.id}`)).body.status;
  }
  expect(status).toBe('ready');
  return dep.body.id as string;
}

/** Activates a ready deployment as the bootstrap INSTANCE_ADMIN. */
export async function activateDeployment(s: Stack, componentId: string, deploymentId: string): Promise<void> {
  expect((await s.api('POST', `/api/v1/components/${componentId}/deployments/${deploymentId}/activate`)).status).toBe(200);
}
