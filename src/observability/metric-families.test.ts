/**
 * The request-path families (metric-families.ts) read exactly as prom-client's own Counter and Histogram:
 * the same observations give the same samples in a scrape, and the same merge across workers.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AggregatorRegistry, Counter, Histogram, Registry } from 'prom-client';
import { CounterFamily, HistogramFamily } from './metric-families.js';

const BUCKETS = [0.001, 0.01, 0.1, 1];
const OBSERVATIONS: Array<[{ route: string; status: string }, number]> = [
  [{ route: '/oauth2/token', status: '200' }, 0.0004],
  [{ route: '/oauth2/token', status: '200' }, 0.001], // on a bound: counted in that bucket (le is "less or equal")
  [{ route: '/oauth2/token', status: '200' }, 0.05],
  [{ route: '/oauth2/token', status: '400' }, 0.002],
  [{ route: '/login', status: '401' }, 3], // above every bound: +Inf only
  [{ route: '/login', status: '401' }, 0],
];

/** Sample lines with their labels sorted, sorted, so that two scrapes compare regardless of line and label order. */
function normalised(text: string): string[] {
  return text
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const [, name, labels = '', value] = /^(\w+)(?:\{(.*)\})? (\S+)$/.exec(line)!;
      return `${name}{${[...labels.matchAll(/\w+="[^"]*"/g)].map(([pair]) => pair).sort().join(',')}} ${value}`;
    })
    .sort();
}

function fill(registry: Registry, kind: 'ours' | 'prom-client'): void {
  if (kind === 'ours') {
    const histogram = new HistogramFamily('t_duration_seconds', 'help', ['route', 'status'], BUCKETS).registerIn(registry);
    const counter = new CounterFamily('t_requests_total', 'help', ['route', 'status']).registerIn(registry);
    for (const [labels, value] of OBSERVATIONS) {
      histogram.series(labels).observe(value);
      counter.series(labels).inc();
    }
  } else {
    const histogram = new Histogram({ name: 't_duration_seconds', help: 'help', labelNames: ['route', 'status'], buckets: BUCKETS, registers: [registry] });
    const counter = new Counter({ name: 't_requests_total', help: 'help', labelNames: ['route', 'status'], registers: [registry] });
    for (const [labels, value] of OBSERVATIONS) {
      histogram.observe(labels, value);
      counter.inc(labels);
    }
  }
}

test('a scrape of the families equals one of prom-client’s Counter and Histogram fed the same observations', async () => {
  const ours = new Registry();
  const theirs = new Registry();
  fill(ours, 'ours');
  fill(theirs, 'prom-client');
  const text = await ours.metrics();
  assert.deepEqual(normalised(text), normalised(await theirs.metrics()));
  assert.match(text, /^# TYPE t_duration_seconds histogram$/m);
  assert.match(text, /^# TYPE t_requests_total counter$/m);
  assert.match(text, /^t_duration_seconds_bucket\{route="\/login",status="401",le="\+Inf"\} 2$/m);
});

test('merged across workers (AggregatorRegistry.aggregate), each worker’s series stay apart, as prom-client’s do', async () => {
  const merged = async (kind: 'ours' | 'prom-client') => {
    const workers = ['1', '2'].map((worker) => {
      const registry = new Registry();
      registry.setDefaultLabels({ worker });
      fill(registry, kind);
      return registry;
    });
    return AggregatorRegistry.aggregate(await Promise.all(workers.map((r) => r.getMetricsAsJSON()))).metrics();
  };
  const ours = await merged('ours');
  assert.deepEqual(normalised(ours), normalised(await merged('prom-client')));
  assert.match(ours, /^t_requests_total\{route="\/oauth2\/token",status="200",worker="2"\} 3$/m);
});

test('a series is resolved once: the same labels give the same series, other labels another', () => {
  const family = new CounterFamily('t_total', 'help', ['route']);
  const a = family.series({ route: '/a' });
  assert.equal(family.series({ route: '/a' }), a);
  assert.notEqual(family.series({ route: '/b' }), a);
});
