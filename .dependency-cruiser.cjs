/**
 * The floors of src/ (docs/architecture.md, "Rooms and floors"), checked by dependency-cruiser in
 * .ci/run (`npm run lint:deps`) and in npm test (test/architecture.test.ts, which also shows each
 * rule failing on a copy of the tree with a forbidden import added).
 *
 * FLOORS is the table the rules are made from, lowest first. A module may import from its own room
 * and from rooms on lower floors; never from a higher floor, nor from another room on its own floor
 * (suite and reporter, for one, are peers that meet only through the floors below them). Type-only
 * imports count: a type is a dependency too. `npm run lint:deps` starts `exec node` without tsx's
 * loader: under it, dependency-cruiser's swc parser fails to load.
 */
const FLOORS = [
  // the ground: where the project is (paths.ts) and helpers that know nothing of the API
  ['paths', 'base'],
  // the API document made data: operations, fields, schemas, headers, prefixes
  ['contract'],
  // what is built from the contract alone: request values, the network's settings, signing; the
  // API document read into the contract's data, and two versions of it compared (spec)
  ['generators', 'net', 'attest', 'spec'],
  // the run's vocabulary: verdicts, selection, profile, plan, baseline, payment guard, what fails a run
  ['vocabulary'],
  // the settings, read once (in the words of the vocabulary below them)
  ['config'],
  // the rate budgets
  ['pacer'],
  // the HTTP client of the target: tokens, signatures, masking, transient faults; the evidence
  // record a case leaves, its one writer and reader, and how a verdict reads as a test status
  ['client', 'evidence'],
  // what stands apart from the suite: the path to the target checked first; the mock
  ['preflight', 'mock'],
  // the cases and their evidence; the package made from the evidence
  ['suite', 'reporter'],
  // verdicts computed again from evidence; the client side's judge
  ['replay', 'judge'],
  // a package verified by itself; the run's orchestration (Playwright's global setup)
  ['verify', 'run'],
  // the suite against its own mock's defects
  ['prove'],
  // the entry points
  ['cli'],
];

const pathOf = (room) => (room === 'paths' ? '^src/paths\\.ts$' : `^src/${room}/`);
const anyOf = (rooms) => rooms.map(pathOf).join('|');

const floorRules = FLOORS.map((rooms, i) => {
  const same = rooms;
  const above = FLOORS.slice(i + 1).flat();
  return rooms.map((room) => ({
    name: `floor-${room}`,
    comment: `${room} (floor ${i}) imports only its own room and lower floors: not ${[...same.filter((r) => r !== room), ...above].join(', ') || 'anything above'}`,
    severity: 'error',
    from: { path: pathOf(room) },
    to: { path: anyOf([...same.filter((r) => r !== room), ...above]) || '^$' },
  }));
}).flat().filter((r) => r.to.path !== '^$');

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'an import circle makes the order modules load in matter and hides which one is the base',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'no-internals',
      comment: "a room's subfolder (suite/rules, mock/store) is its own business: other rooms go through the room's modules",
      severity: 'error',
      from: { path: '^src/([^/]+)/' },
      to: { path: '^src/[^/]+/[^/]+/', pathNot: '^src/$1/' },
    },
    {
      name: 'every-room-has-a-floor',
      comment: 'a new room gets its floor in FLOORS (.dependency-cruiser.cjs) and its line in docs/architecture.md',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^src/', pathNot: anyOf(FLOORS.flat()) },
    },
    ...floorRules,
  ],
  options: {
    // dependency-cruiser reads TypeScript with swc: it does not read TypeScript 7's compiler
    parser: 'swc',
    tsConfig: { fileName: 'tsconfig.json' },
    // type-only imports are dependencies too
    tsPreCompilationDeps: true,
    doNotFollow: { path: 'node_modules' },
    exclude: { path: 'node_modules' },
  },
};
