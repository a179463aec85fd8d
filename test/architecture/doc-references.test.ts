/**
 * Comments cite the repository's own documents by section title: `docs/protocol-decisions.md "Title"` for a
 * protocol decision and `BENCHMARKS.md, "Heading"` for the figure behind a performance choice. Every cited title
 * must be a heading of that document, so that renaming a section without its citations (or citing one that was
 * never written) fails here instead of leaving a reader at a dead end.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';

const ROOT = join(import.meta.dirname, '..', '..');
const SOURCES = ['src', 'test', 'examples', 'bench', 'scripts'];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name === 'node_modules' || entry.name.startsWith('.')) return [];
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.(ts|tsx|mjs|js)$/.test(entry.name) ? [path] : [];
  });
}

/** A title as comments write it: backticks dropped, whitespace collapsed. */
const normalise = (title: string) => title.replace(/`/g, '').replace(/\s+/g, ' ').trim();

/** The `##` and `###` headings of a Markdown file. */
function headings(file: string): Set<string> {
  const text = readFileSync(join(ROOT, file), 'utf8');
  return new Set([...text.matchAll(/^#{2,3} (.+)$/gm)].map((match) => normalise(match[1]!)));
}

/** A file's text with comment markers at line starts removed, so that a title wrapped over two lines reads as one. */
function asProse(text: string): string {
  return text.replace(/\n\s*(?:\*(?!\/)|\/\/)[ \t]?/g, ' ');
}

/** The titles cited after `document` in `prose`: one, or a list (`"A", "B" and "C"`). */
function citations(prose: string, document: RegExp): string[] {
  const found: string[] = [];
  for (const match of prose.matchAll(new RegExp(`${document.source},? ((?:"[^"]+"(?:,? (?:and )?)?)+)`, 'g'))) {
    for (const title of match[1]!.matchAll(/"([^"]+)"/g)) found.push(normalise(title[1]!));
  }
  return found;
}

test('every section a comment cites in docs/protocol-decisions.md and BENCHMARKS.md exists', () => {
  const documents = [
    { name: 'docs/protocol-decisions.md', pattern: /docs\/protocol-decisions\.md/, titles: headings('docs/protocol-decisions.md') },
    { name: 'BENCHMARKS.md', pattern: /BENCHMARKS\.md/, titles: headings('BENCHMARKS.md') },
  ];
  const missing: string[] = [];
  let cited = 0;
  for (const file of SOURCES.flatMap((dir) => sourceFiles(join(ROOT, dir)))) {
    if (file === import.meta.filename) continue;
    const prose = asProse(readFileSync(file, 'utf8'));
    for (const document of documents) {
      for (const title of citations(prose, document.pattern)) {
        cited += 1;
        if (!document.titles.has(title)) missing.push(`${relative(ROOT, file)}: ${document.name} "${title}"`);
      }
    }
  }
  assert.deepEqual(missing, [], `cited sections that are not headings:\n${missing.join('\n')}`);
  assert.ok(cited > 20, `found only ${cited} citations: the pattern no longer matches how comments cite`);
});
