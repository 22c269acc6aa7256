// The rule every caller applies to decide what runs as a service account (src/core/definitions/approval-rule.ts
// over src/core/identity/coverage.ts), on its own: which approvals cover which accounts, and which revision runs.
import { describe, expect, test } from 'bun:test';
import { covers, rightsGap } from '../../../src/core/identity/coverage.ts';
import { approvedFor, revisionToRun, type ApprovedRevision } from '../../../src/core/definitions/approval-rule.ts';

const rights = (roles: string[], workspaceIds = ['w']) => ({ roles, workspaceIds });

describe('coverage', () => {
  test('every role of the account but ENDPOINT_INVOKE, and every workspace; INSTANCE_ADMIN holds all', () => {
    expect(covers(rights(['COMPONENT_ADMIN', 'AGENT_ADMIN']), rights(['AGENT_ADMIN', 'ENDPOINT_INVOKE']))).toBe(true);
    expect(rightsGap(rights(['COMPONENT_ADMIN']), rights(['AGENT_ADMIN', 'ENDPOINT_INVOKE']))).toEqual({ roles: ['AGENT_ADMIN'], workspaceIds: [] });
    expect(rightsGap(rights(['AGENT_ADMIN']), rights(['AGENT_ADMIN'], ['w', 'x']))).toEqual({ roles: [], workspaceIds: ['x'] });
    expect(covers(rights(['INSTANCE_ADMIN'], []), rights(['INSTANCE_ADMIN', 'AGENT_ADMIN'], ['w', 'x']))).toBe(true);
    expect(covers(rights(['COMPONENT_ADMIN', 'AGENT_ADMIN']), rights(['INSTANCE_ADMIN']))).toBe(false);
    expect(approvedFor([rights(['COMPONENT_ADMIN']), rights(['AGENT_ADMIN'], ['w', 'x'])], rights(['AGENT_ADMIN'], ['x']))).toBe(true);
    expect(approvedFor([], rights([], []))).toBe(false);
  });

  test('an account that owns agents also needs AGENT_ADMIN in their workspaces (an owner may do what it does)', () => {
    const owner = { ...rights(['ENDPOINT_INVOKE']), agentWorkspaceIds: ['w', 'y'] };
    expect(rightsGap(rights(['COMPONENT_ADMIN']), owner)).toEqual({ roles: ['AGENT_ADMIN'], workspaceIds: ['y'] });
    expect(rightsGap(rights(['COMPONENT_ADMIN', 'AGENT_ADMIN'], ['w', 'y']), owner)).toEqual({ roles: [], workspaceIds: [] });
    expect(covers(rights(['INSTANCE_ADMIN'], []), owner)).toBe(true);
    // Listed once even when the account holds AGENT_ADMIN itself.
    expect(rightsGap(rights([]), { ...rights(['AGENT_ADMIN']), agentWorkspaceIds: ['w'] }).roles).toEqual(['AGENT_ADMIN']);
    expect(covers(rights(['COMPONENT_ADMIN']), { ...rights(['ENDPOINT_INVOKE']), agentWorkspaceIds: [] })).toBe(true);
  });
});

describe('revisionToRun', () => {
  const agentAdmin = rights(['AGENT_ADMIN']);
  const weak = [rights(['COMPONENT_ADMIN'])];
  const strong = [rights(['COMPONENT_ADMIN', 'AGENT_ADMIN'])];
  const revision = (n: number, approvals: ApprovedRevision['approvals'], digest = `sha256:${n}`): ApprovedRevision => ({ id: `r${n}`, number: n, digest, approvals });
  const approved = [revision(1, strong, 'sha256:same'), revision(2, strong), revision(3, weak, 'sha256:same'), revision(4, weak)];

  test('the bound revision when approved for the account; lowcode falls back to the newest approved one', () => {
    expect(revisionToRun({ kind: 'lowcode', bound: { id: 'r2' }, approved, account: agentAdmin })).toBe('r2');
    expect(revisionToRun({ kind: 'lowcode', bound: { id: 'r4' }, approved, account: agentAdmin })).toBe('r2');
    expect(revisionToRun({ kind: 'lowcode', bound: { id: 'r4' }, approved, account: rights(['COMPONENT_ADMIN']) })).toBe('r4');
    expect(revisionToRun({ kind: 'lowcode', bound: { id: 'r4' }, approved, account: rights(['ENDPOINT_ADMIN']) })).toBeNull();
  });

  test('node never falls back; a pin runs when any revision with its digest is approved; nothing bound runs nothing', () => {
    expect(revisionToRun({ kind: 'node', bound: { id: 'r4' }, approved, account: agentAdmin })).toBeNull();
    expect(revisionToRun({ kind: 'node', bound: { id: 'r2' }, approved, account: agentAdmin })).toBe('r2');
    expect(revisionToRun({ kind: 'lowcode', pinnedDigest: 'sha256:same', bound: { id: 'r3' }, approved, account: agentAdmin })).toBe('r3');
    expect(revisionToRun({ kind: 'lowcode', pinnedDigest: 'sha256:4', bound: { id: 'r4' }, approved, account: agentAdmin })).toBeNull();
    expect(revisionToRun({ kind: 'lowcode', bound: null, approved, account: agentAdmin })).toBeNull();
  });
});
