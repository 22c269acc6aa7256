// Gives each revision id a small numeric key (what travels on the wire) and keeps its serialized
// source, built once, and its tenant. Revisions are immutable, so the first object seen for an id
// stands for it.
import type { CodeRevision } from '../contract/index.ts';

export interface RevisionEntry {
  key: number;
  /** Whose code it is: it runs only on hosts bound to this tenant. */
  tenant: string;
  /** JSON of the revision, the payload of the host's load line. */
  json: string;
  /** Hosts that have it loaded. */
  hosts: number;
  lastUsed: number;
}

export class RevisionRegistry {
  private readonly byId = new Map<string, RevisionEntry>();
  private nextKey = 1;

  entry(revision: CodeRevision): RevisionEntry {
    let entry = this.byId.get(revision.id);
    // The same id claimed for another tenant never shares the first one's entry (or its hosts).
    if (entry && entry.tenant !== revision.tenant) return this.transient(revision);
    if (!entry) {
      entry = this.transient(revision);
      this.byId.set(revision.id, entry);
    }
    entry.lastUsed = performance.now();
    return entry;
  }

  /** A one-off key (verification), never shared with live traffic. */
  transient(revision: CodeRevision): RevisionEntry {
    return { key: this.nextKey++, tenant: revision.tenant, json: JSON.stringify(revision), hosts: 0, lastUsed: performance.now() };
  }

  /** Drops ids no host has loaded and nobody asked for lately, so the registry does not grow forever. */
  forgetUnused(now: number, idleMs: number): void {
    for (const [id, entry] of this.byId) if (entry.hosts === 0 && now - entry.lastUsed > idleMs) this.byId.delete(id);
  }
}
