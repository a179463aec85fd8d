/**
 * The layer rules of src/, checked on every import: a folder may only depend on the folders below it, so
 * that the tree keeps reading as the architecture. From the bottom up: errors.ts, config.ts and crypto/
 * (vocabulary and primitives); storage/; http/ (framework glue) and views/ (view models in, HTML out);
 * the services (clients/, keys/, session/, mail/, accounts/ rules); the routes (oauth/, accounts/,
 * developer/, and admin/ above them all, as it administers what the others made); and the composition (app.ts,
 * server.ts, cli/).
 *
 * Every static `import … from`, `export … from`, side-effect import and `import()` of every src/ file except
 * tests is read; tests may import whatever they test.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { test } from 'node:test';
import ts from 'typescript';

const SRC = join(import.meta.dirname, '../../src');

/** A module as a path inside src/, with forward slashes: 'oauth/token.ts'. */
type Module = string;
type Matcher = (module: Module) => boolean;

/** Modules under one of these folders ('storage/') or equal to one of these root files ('errors.ts'). */
function within(...places: string[]): Matcher {
  return (module) => places.some((place) => (place.endsWith('/') ? module.startsWith(place) : module === place));
}
const anything: Matcher = () => true;
function except(matcher: Matcher): Matcher {
  return (module) => !matcher(module);
}

interface Rule {
  rule: string;
  /** The importing modules the rule applies to. */
  from: Matcher;
  /** The imports that break it. */
  forbidden: Matcher;
}

const RULES: Rule[] = [
  {
    rule: 'storage/ is the bottom layer: it imports only storage/, crypto/ and errors.ts',
    from: within('storage/'),
    forbidden: except(within('storage/', 'crypto/', 'errors.ts')),
  },
  {
    rule: 'crypto/ holds primitives: it imports only crypto/',
    from: within('crypto/'),
    forbidden: except(within('crypto/')),
  },
  {
    rule: 'views/ render the view models they are given: they import no storage, services, routes or HTTP',
    from: within('views/'),
    forbidden: within('storage/', 'accounts/', 'developer/', 'admin/', 'mail/', 'oauth/', 'http/', 'session/', 'keys/', 'clients/'),
  },
  {
    rule: 'cli/ is the top: nothing outside cli/ imports it',
    from: except(within('cli/')),
    forbidden: within('cli/'),
  },
  {
    rule: 'the protocol does not know how it is started: oauth/ imports no cli/, app.ts or server.ts',
    from: within('oauth/'),
    forbidden: within('cli/', 'app.ts', 'server.ts'),
  },
  {
    rule: 'http/ is framework glue below the routes: it imports no oauth/, accounts/, developer/ or admin/',
    from: within('http/'),
    forbidden: within('oauth/', 'accounts/', 'developer/', 'admin/'),
  },
  {
    rule: 'admin/ (the admin console) sits above the routes and services it administers: only app.ts composes it',
    from: except(within('admin/', 'app.ts')),
    forbidden: within('admin/'),
  },
  {
    rule: 'observability/ watches from the side: it imports only config.ts, storage/ and itself, never the routes or services it counts',
    from: within('observability/'),
    forbidden: except(within('observability/', 'config.ts', 'storage/')),
  },
  {
    rule: 'audit/ records what it is told: it imports only storage/ and itself, never the routes and commands that call it',
    from: within('audit/'),
    forbidden: except(within('audit/', 'storage/')),
  },
  {
    rule: 'app.ts is composed by server.ts and cli/ only',
    from: except(within('server.ts', 'cli/')),
    forbidden: within('app.ts'),
  },
];

/**
 * Known violations, each with the step that removes it (none today). An entry that no longer matches an
 * import fails the test too, so that the list only shrinks.
 */
const ALLOWED: { from: Module; imports: Module; until: string }[] = [];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(entry) && !/\.test\.tsx?$/.test(entry) ? [path] : [];
  });
}

/** The file a relative specifier names under NodeNext: './x.js' is x.ts or x.tsx. */
function resolveImport(fromFile: string, specifier: string): string | null {
  const target = join(dirname(fromFile), specifier);
  const stem = target.replace(/\.js$/, '');
  return [target, `${stem}.ts`, `${stem}.tsx`].find((candidate) => existsSync(candidate) && statSync(candidate).isFile()) ?? null;
}

interface Import {
  from: Module;
  specifier: string;
  target: Module;
}

function readImports(): { imports: Import[]; unresolved: string[] } {
  const imports: Import[] = [];
  const unresolved: string[] = [];
  for (const file of sourceFiles(SRC)) {
    const from = relative(SRC, file).split('\\').join('/');
    // preProcessFile lists import and export declarations (type-only too) and import() calls.
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    for (const { fileName: specifier } of importedFiles) {
      if (!specifier.startsWith('.')) continue;
      const resolved = resolveImport(file, specifier);
      if (!resolved) {
        unresolved.push(`src/${from} imports '${specifier}', which names no file`);
        continue;
      }
      imports.push({ from, specifier, target: relative(SRC, resolved).split('\\').join('/') });
    }
  }
  return { imports, unresolved };
}

/** The node of the folder graph: the top-level folder ('oauth') or the root file ('app.ts'). */
function topLevel(module: Module): string {
  return module.split('/')[0] as string;
}

/** Strongly connected components of more than one folder (Tarjan), each a folder-level import cycle. */
function folderCycles(edges: Map<string, Map<string, Import>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  let next = 0;
  const visit = (node: string): void => {
    index.set(node, next);
    low.set(node, next);
    next += 1;
    stack.push(node);
    onStack.add(node);
    for (const to of edges.get(node)?.keys() ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node)!, low.get(to)!));
      } else if (onStack.has(to)) {
        low.set(node, Math.min(low.get(node)!, index.get(to)!));
      }
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1) cycles.push(component.sort());
    }
  };
  for (const node of edges.keys()) if (!index.has(node)) visit(node);
  return cycles;
}

test('every import of src/ follows the layer rules, and no two top-level folders import each other', () => {
  const { imports, unresolved } = readImports();
  assert.deepEqual(unresolved, [], 'every relative import must name a file, or the rules below would not see it');
  // A parser that found nothing would pass every rule: Latch's src/ has hundreds of relative imports.
  assert.ok(imports.length > 300, `only ${imports.length} imports were read from src/`);

  const problems: string[] = [];
  const usedAllowances = new Set<(typeof ALLOWED)[number]>();
  for (const { from, specifier, target } of imports) {
    for (const { rule, from: applies, forbidden } of RULES) {
      if (!applies(from) || !forbidden(target)) continue;
      const allowance = ALLOWED.find((entry) => entry.from === from && entry.imports === target);
      if (allowance) {
        usedAllowances.add(allowance);
        continue;
      }
      problems.push(`src/${from} imports '${specifier}' (src/${target}): breaks "${rule}"`);
    }
  }
  for (const entry of ALLOWED) {
    if (!usedAllowances.has(entry)) {
      problems.push(`the allowance src/${entry.from} → src/${entry.imports} (${entry.until}) matches no forbidden import any more: delete it`);
    }
  }

  const edges = new Map<string, Map<string, Import>>();
  for (const entry of imports) {
    const [from, to] = [topLevel(entry.from), topLevel(entry.target)];
    if (from === to) continue;
    if (!edges.has(from)) edges.set(from, new Map());
    if (!edges.get(from)!.has(to)) edges.get(from)!.set(to, entry);
  }
  for (const cycle of folderCycles(edges)) {
    const members = new Set(cycle);
    const witnesses = cycle.flatMap((folder) =>
      [...(edges.get(folder) ?? [])].filter(([to]) => members.has(to)).map(([, { from, specifier }]) => `src/${from} imports '${specifier}'`),
    );
    problems.push(`the top-level folders ${cycle.join(', ')} are in an import cycle; the imports between them: ${witnesses.join('; ')}`);
  }

  assert.equal(problems.length, 0, `\n${problems.join('\n')}\n`);
});

test('the import reader sees static, type-only, re-exported, side-effect and dynamic imports', () => {
  const source = [
    "import a from './a.js';",
    "import type { B } from './b.js';",
    "export { c } from './c.js';",
    "export * from './d.js';",
    "import './e.js';",
    "const f = await import('./f.js');",
  ].join('\n');
  const seen = ts.preProcessFile(source, true, true).importedFiles.map((file) => file.fileName);
  assert.deepEqual(seen.sort(), ['./a.js', './b.js', './c.js', './d.js', './e.js', './f.js']);
});
