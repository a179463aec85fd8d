/**
 * The test files under test/ share processes (scripts/run-tests.mjs: twelve groups, four at a time), so none may
 * leave the environment of its process changed: a variable set by one file would reach the files after it in its
 * group, and which files share a group changes with their measured durations. Each file passes an environment to
 * what it spawns, or a configuration object to what it starts in-process, instead.
 *
 * Read with TypeScript's parser: an assignment to `process.env.X` or `process.env[X]` (=, ??=, += …), `delete` of
 * one, and `Object.assign(process.env, …)`, unless the same function undoes it in a `finally` block.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import ts from 'typescript';

const ROOT = join(import.meta.dirname, '..', '..');

function typeScriptFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) return typeScriptFiles(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

function dotted(node: ts.Node): string {
  if (ts.isPropertyAccessExpression(node)) return `${dotted(node.expression)}.${node.name.text}`;
  return ts.isIdentifier(node) ? node.text : '';
}

/** The variable a `process.env.X` or `process.env['X']` names ('*' for a computed name), or undefined. */
function environmentVariable(node: ts.Node): string | undefined {
  if (ts.isPropertyAccessExpression(node) && dotted(node.expression) === 'process.env') return node.name.text;
  if (ts.isElementAccessExpression(node) && dotted(node.expression) === 'process.env') {
    return ts.isStringLiteral(node.argumentExpression) ? node.argumentExpression.text : '*';
  }
  return undefined;
}

function enclosingFunction(node: ts.Node): ts.Node | undefined {
  for (let at = node.parent; at; at = at.parent) if (ts.isFunctionLike(at)) return at;
  return undefined;
}

function inFinallyBlock(node: ts.Node): boolean {
  for (let at: ts.Node = node; at.parent; at = at.parent) {
    if (ts.isTryStatement(at.parent) && at.parent.finallyBlock === at) return true;
    if (ts.isFunctionLike(at.parent)) return false;
  }
  return false;
}

/**
 * Each place in `source` that changes the process's environment and leaves it changed, as "line: code". A change
 * that the same function undoes in a `finally` block (set for one test, then restored) is allowed: nothing of it
 * outlives the test.
 */
function environmentChanges(fileName: string, source: string): string[] {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true);
  const changes: Array<{ node: ts.Node; variable: string; scope: ts.Node | undefined }> = [];
  const restored = new Set<string>();
  const scopes = new Map<ts.Node | undefined, number>();
  const scopeId = (scope: ts.Node | undefined) => scopes.get(scope) ?? (scopes.set(scope, scopes.size), scopes.size - 1);
  const change = (node: ts.Node, variable: string) => {
    const scope = enclosingFunction(node);
    if (inFinallyBlock(node)) restored.add(`${scopeId(scope)}:${variable}`);
    else changes.push({ node, variable, scope });
  };
  const visit = (node: ts.Node) => {
    const assigns = ts.isBinaryExpression(node) && node.operatorToken.kind >= ts.SyntaxKind.FirstAssignment && node.operatorToken.kind <= ts.SyntaxKind.LastAssignment;
    const variable = assigns ? environmentVariable(node.left) : ts.isDeleteExpression(node) ? environmentVariable(node.expression) : undefined;
    if (variable !== undefined) change(node, variable);
    else if (ts.isCallExpression(node) && dotted(node.expression) === 'Object.assign' && node.arguments[0] && dotted(node.arguments[0]) === 'process.env') {
      change(node, '*');
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return changes
    .filter(({ variable, scope }) => !restored.has(`${scopeId(scope)}:${variable}`))
    .map(({ node }) => `${file.getLineAndCharacterOfPosition(node.getStart()).line + 1}: ${node.getText().slice(0, 80)}`);
}

test('the rule finds each way of leaving the environment changed; reading it, or a change undone in finally, is not one', () => {
  const source = [
    'process.env.A = "1";',
    "process.env['B'] ??= '2';",
    'delete process.env.C;',
    'Object.assign(process.env, { D: "4" });',
    'const e = process.env.E; spawn("x", { env: { ...process.env, F: "6" } });',
    'test("t", () => { const previous = process.env.G; process.env.G = "7"; try { run(); } finally { process.env.G = previous; } });',
    'test("u", () => { process.env.H = "8"; try { run(); } finally { delete process.env.G; } });',
  ].join('\n');
  assert.deepEqual(
    environmentChanges('example.ts', source).map((change) => change.split(':')[0]),
    ['1', '2', '3', '4', '7'],
  );
});

test('no test file under test/ changes its process environment (they share processes)', () => {
  const changes = typeScriptFiles(join(ROOT, 'test')).flatMap((path) =>
    environmentChanges(path, readFileSync(path, 'utf8')).map((change) => `${relative(ROOT, path)}:${change}`),
  );
  assert.deepEqual(changes, [], `pass an environment to what the test spawns instead:\n${changes.join('\n')}`);
});
