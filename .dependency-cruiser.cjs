// The layer rules of src/ (docs/layout.md), checked by `npm run lint`:
// engine → infra only; infra → infra only; areas → engine, infra and other areas; no folder cycles.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'engine-above-itself',
      comment: 'The engine (pipeline, detectors, policy, recording, findings rules) depends on no area, no CLI and not on the composition root; it owns the interfaces areas implement.',
      severity: 'error',
      from: { path: '^src/engine/' },
      to: { path: '^src/(areas|cli)/|^src/[^/]+\\.ts$' },
    },
    {
      name: 'engine-over-http',
      comment: 'The engine answers no HTTP and knows no credentials: it may use infra/lib and infra/store only.',
      severity: 'error',
      from: { path: '^src/engine/' },
      to: { path: '^src/infra/(http|auth|config|jobs)/' },
    },
    {
      name: 'infra-above-itself',
      comment: 'Infrastructure (http, auth, store, config, jobs, lib) depends on nothing but infrastructure.',
      severity: 'error',
      from: { path: '^src/infra/' },
      to: { path: '^src/(engine|areas|cli)/|^src/[^/]+\\.ts$' },
    },
    {
      name: 'lib-depends-on-nothing',
      comment: 'infra/lib is the bottom: plain helpers that import no other part of src/.',
      severity: 'error',
      from: { path: '^src/infra/lib/' },
      to: { path: '^src/', pathNot: '^src/infra/lib/' },
    },
    {
      name: 'areas-below-the-root',
      comment: 'Areas are composed by src/app.ts and src/services.ts; they never import the root or the CLI.',
      severity: 'error',
      from: { path: '^src/areas/' },
      to: { path: '^src/cli/|^src/[^/]+\\.ts$' },
    },
    {
      name: 'no-folder-cycles',
      comment: 'No two folders depend on each other, directly or around a loop.',
      severity: 'error',
      scope: 'folder',
      from: { path: '^src/' },
      to: { circular: true },
    },
  ],
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    exclude: { path: '\\.test\\.ts$' },
    doNotFollow: { path: 'node_modules' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
  },
};
