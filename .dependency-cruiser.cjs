// Import rules of the code base (README "Architecture"), checked by `npm test`
// (test/architecture.test.ts); a file that breaks one fails the run.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'No import loop other than through type-only imports.',
      from: {},
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      comment: 'Every import resolves.',
      from: {},
      to: { couldNotResolve: true },
    },
    {
      name: 'control-plane-uses-runtime-parts-through-their-index',
      severity: 'error',
      comment: "The control plane may use the runtime's guard, router and executor only through their folders' index.ts.",
      from: { path: '^src/' },
      to: { path: '^runtime/(guard|router|executor)/', pathNot: '^runtime/(guard|router|executor)/index\\.ts$' },
    },
    {
      name: 'sandbox-programs-stay-apart',
      severity: 'error',
      comment: 'What runs inside the sandbox (executor host and Worker) imports nothing of the server but the wire format and the contract (types and limits).',
      from: { path: '^runtime/executor/(host|worker)/' },
      to: { path: '^(src/|runtime/)', pathNot: '^runtime/executor/(host|worker|wire|contract)/' },
    },
    {
      name: 'other-folders-through-their-index',
      severity: 'error',
      comment:
        "Each folder's index.ts exports what other folders may use: an import from another folder names that folder's index.ts, never a file behind it. Imports within a folder stay direct.",
      from: { path: '^(src|runtime|src/.+|runtime/.+)/[^/]+$' },
      to: { path: '^(?:src|runtime)/', pathNot: ['^$1/[^/]+$', '/index\\.ts$'] },
    },
    {
      name: 'bun-only-behind-the-platform-seam',
      severity: 'error',
      comment:
        "Bun's own modules (bun:*, the 'bun' types, drizzle's bun-sqlite driver) are imported only by the platform seam's Bun implementation (src/core/platform/bun*.ts) and by the programs that run inside the sandbox (runtime/executor/host/, worker/), which the Deno work gives a seam of their own. The Bun global is checked by test/architecture.test.ts.",
      from: { path: '^(src|runtime)/', pathNot: ['^src/core/platform/bun[^/]*\\.ts$', '^runtime/executor/(host|worker)/'] },
      to: { path: ['^bun(:|$)', 'node_modules/(@types/bun|bun-types|drizzle-orm/bun-sqlite)/'] },
    },
    {
      name: 'core-imports-only-core',
      severity: 'error',
      comment: 'src/core/ is what both origins share and neither owns: it imports neither runtime/ nor any other part of src/.',
      from: { path: '^src/core/' },
      to: { path: '^(src/|runtime/)', pathNot: '^src/core/' },
    },
    {
      name: 'runtime-imports-only-core',
      severity: 'error',
      comment: 'runtime/ imports only src/core/ and itself: the origins share src/core/, neither reaches into the other.',
      from: { path: '^runtime/' },
      to: { path: '^src/', pathNot: '^src/core/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|test|bench)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    // Resolve packages as the runtime does (their `exports` with the import conditions): the MCP
    // SDK's `"./*"` export maps `types` to `*.js.d.ts` files that do not exist, so a resolver that
    // tries `types` first finds nothing for `@modelcontextprotocol/sdk/client/sse.js`.
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
  },
};
