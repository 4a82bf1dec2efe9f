/**
 * The layer rule, checked (`npm test` runs `depcruise src` through scripts/test.mjs):
 *
 *   ui ──(types)──> worker/api.ts ──> core        cli ──> core        core ──> core only
 *
 * - core imports nothing outside core: no ui, worker or cli module, no Node built-in (types are
 *   checked by tsconfig.core.json: ES2023 without DOM or Node).
 * - ui reaches the workers through src/worker/api.ts only (types; the worker modules are started
 *   with `new Worker(new URL(...))`, which is not an import).
 * - ui takes from core only the modules listed in UI_MAY_USE: plain data types and pure view
 *   helpers. No parser, reader, writer, pass or analysis: those run in a worker.
 * - A format's document module loads lazily (a dynamic import from its format.ts), so opening one
 *   format never loads another.
 * - No import cycles, type-only imports included.
 * Tests (`*.test.ts`) are harnesses: they may build inputs with any module (but not form cycles).
 */
const TESTS = '\\.test\\.tsx?$';

/** What src/ui may import from src/core, and why each is safe on the UI thread. */
const UI_MAY_USE = [
  'src/core/errors\\.ts$', // ErrorInfo and describeError: formatting a message
  'src/core/text-edit\\.ts$', // applying an edit the worker computed to the text mirror
  'src/core/graph/model\\.ts$', // the Graph types every view draws
  'src/core/graph/layout-types\\.ts$', // layout result types
  'src/core/graph/pack\\.ts$', // unpacking the graph the worker packed (typed arrays -> objects)
  'src/core/graph/packed-graph\\.ts$', // reading the packed graph's nodes and edges on demand (typed arrays -> objects as read)
  'src/core/graph/view/', // the renderer's DOM-free geometry: hit test, keyboard navigation, labels, scene
  'src/core/systrace/model\\.ts$', // the profile's data types and the layer / phase name constants
];

module.exports = {
  forbidden: [
    {
      name: 'core-stays-in-core',
      comment: 'src/core is pure TypeScript: it imports nothing from ui, worker or cli.',
      severity: 'error',
      from: { path: '^src/core/', pathNot: TESTS },
      to: { path: '^(src/(?!core/)|e2e/|bench/|scripts/)' },
    },
    {
      name: 'core-no-node',
      comment: 'src/core runs in browsers and workers as well as Node: no Node built-in modules.',
      severity: 'error',
      from: { path: '^src/core/', pathNot: TESTS },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'ui-only-through-worker-api',
      comment: 'The UI talks to the workers through src/worker/api.ts (types) and nothing else under src/worker.',
      severity: 'error',
      from: { path: '^src/ui/', pathNot: TESTS },
      to: { path: '^src/worker/', pathNot: '^src/worker/api\\.ts$' },
    },
    {
      name: 'ui-core-allow-list',
      comment: 'The UI takes from core only plain data types and pure view helpers (UI_MAY_USE); parsers, readers, writers and passes run in a worker.',
      severity: 'error',
      from: { path: '^src/ui/', pathNot: TESTS },
      to: { path: '^src/core/', pathNot: UI_MAY_USE },
    },
    {
      name: 'no-node-in-ui-or-worker',
      comment: 'ui and worker run in the browser.',
      severity: 'error',
      from: { path: '^src/(ui|worker)/', pathNot: TESTS },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'worker-not-ui',
      severity: 'error',
      from: { path: '^src/worker/' },
      to: { path: '^src/(ui|cli)/' },
    },
    {
      name: 'cli-not-browser',
      comment: 'The CLI runs core directly, never the UI or the worker wrappers.',
      severity: 'error',
      from: { path: '^src/cli/' },
      to: { path: '^src/(ui|worker)/' },
    },
    {
      name: 'format-documents-load-lazily',
      comment: "A format's document module (src/core/<format>/document.ts) is loaded by its format.ts with import(), so the registry stays cheap.",
      severity: 'error',
      from: { path: '^src/', pathNot: TESTS },
      to: { path: '^src/core/[^/]+/document\\.ts$', dependencyTypesNot: ['dynamic-import', 'type-only'] },
    },
    {
      name: 'no-circular',
      comment: 'Import cycles (type-only ones included) make layers meaningless and modules load in surprising orders.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)generated/' },
    // type-only imports count: the layer rule is about what a module knows, not only what it loads
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'], extensions: ['.ts', '.tsx', '.js', '.mjs', '.json'] },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
