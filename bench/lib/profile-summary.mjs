/**
 * Reads a V8 .cpuprofile (node --cpu-prof) and prints where the time goes: self time by function, self time by
 * package or source file, and inclusive time by function (a flame graph folded into a table). The profile
 * itself opens in Chrome DevTools (Performance → Load profile) or speedscope for the graph.
 *
 *   node lib/profile-summary.mjs file.cpuprofile [top]
 */
import { readFileSync } from 'node:fs';

function where(url) {
  if (!url) return '(native)';
  const modules = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (modules) return modules[1];
  if (url.startsWith('node:')) return url.replace(/^node:internal\/.*$/, 'node:internal');
  const dist = /\/dist\/(.*)$/.exec(url);
  if (dist) return `latch:${dist[1]}`;
  return url.replace(/^file:\/\//, '');
}

export function summarizeProfile(path, top = 25) {
  const profile = JSON.parse(readFileSync(path, 'utf8'));
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfMicros = new Map();
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i];
    selfMicros.set(id, (selfMicros.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  }
  const totalMicros = [...selfMicros.values()].reduce((a, b) => a + b, 0);
  const parent = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);

  const label = (node) => `${node.callFrame.functionName || '(anonymous)'} ${where(node.callFrame.url)}:${node.callFrame.lineNumber + 1}`;
  const selfByFunction = new Map();
  const selfByPlace = new Map();
  const inclusiveByFunction = new Map();
  for (const [id, micros] of selfMicros) {
    const node = byId.get(id);
    const name = node.callFrame.functionName;
    const isIdle = name === '(idle)' || name === '(program)' || name === '(garbage collector)';
    selfByFunction.set(label(node), (selfByFunction.get(label(node)) ?? 0) + micros);
    const place = isIdle ? name : where(node.callFrame.url);
    selfByPlace.set(place, (selfByPlace.get(place) ?? 0) + micros);
    // Inclusive: credit each distinct function on the stack once.
    const seen = new Set();
    for (let at = id; at !== undefined; at = parent.get(at)) {
      const key = label(byId.get(at));
      if (seen.has(key)) continue;
      seen.add(key);
      inclusiveByFunction.set(key, (inclusiveByFunction.get(key) ?? 0) + micros);
    }
  }
  const idle = selfByPlace.get('(idle)') ?? 0;
  const busy = totalMicros - idle;
  const percent = (micros) => `${((micros / busy) * 100).toFixed(1).padStart(5)}%`;
  const topOf = (map, n) => [...map].filter(([k]) => k !== '(idle)' && !k.startsWith('(idle)')).sort((a, b) => b[1] - a[1]).slice(0, n);
  const lines = [
    `${path}: ${(totalMicros / 1e6).toFixed(2)} s sampled, ${(busy / 1e6).toFixed(2)} s busy (percentages are of busy time)`,
    '',
    'Self time by package or file:',
    ...topOf(selfByPlace, top).map(([k, v]) => `  ${percent(v)}  ${k}`),
    '',
    'Self time by function:',
    ...topOf(selfByFunction, top).map(([k, v]) => `  ${percent(v)}  ${k}`),
    '',
    'Inclusive time by function:',
    ...topOf(inclusiveByFunction, top * 2).map(([k, v]) => `  ${percent(v)}  ${k}`),
  ];
  return lines.join('\n');
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop())) {
  process.stdout.write(`${summarizeProfile(process.argv[2], Number(process.argv[3] ?? 25))}\n`);
}
