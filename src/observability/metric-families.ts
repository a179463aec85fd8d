/**
 * Counters and histograms for the request path, where counting must cost next to nothing: a label set is
 * resolved once to its series, and counting is then an addition on that series.
 *
 * prom-client's own `observe`/`inc` validate and hash the whole label set on every call: 0.3–0.5 µs each,
 * measured on this machine, where a userinfo request costs about 40 µs of CPU in all (BENCHMARKS.md). These
 * families are still formatted, merged across workers and served by prom-client: each implements the metric
 * contract its Registry reads (name, help, type, aggregator and `get()`, as `registerMetric` takes it), and the
 * test beside this file checks that a scrape reads exactly as prom-client's own Counter and Histogram would.
 */
import type { Metric, Registry } from 'prom-client';

type Labels<Name extends string> = Readonly<Record<Name, string>>;

/** One sample as prom-client's Registry reads it from `get()`. */
export interface Sample {
  labels: Record<string, string | number>;
  value: number;
  metricName: string;
}

export interface FamilySnapshot {
  name: string;
  help: string;
  type: 'counter' | 'histogram';
  aggregator: 'sum';
  values: Sample[];
}

/** One label set's histogram: a count per bucket (not cumulative; the last is +Inf), their sum and count. */
export class HistogramSeries {
  readonly counts: Float64Array;
  sum = 0;
  count = 0;

  constructor(
    readonly labels: Readonly<Record<string, string>>,
    private readonly upperBounds: readonly number[],
  ) {
    this.counts = new Float64Array(upperBounds.length + 1);
  }

  observe(value: number): void {
    const bounds = this.upperBounds;
    let bucket = 0;
    while (bucket < bounds.length && value > bounds[bucket]!) bucket += 1;
    this.counts[bucket]! += 1;
    this.sum += value;
    this.count += 1;
  }
}

export class CounterSeries {
  value = 0;

  constructor(readonly labels: Readonly<Record<string, string>>) {}

  inc(amount = 1): void {
    this.value += amount;
  }
}

/** The part of prom-client's metric contract that its Registry and AggregatorRegistry call. */
abstract class Family<Name extends string, Series extends { labels: Readonly<Record<string, string>> }> {
  abstract readonly type: 'counter' | 'histogram';
  /** How the primary of `latch serve --workers` merges the workers' values (prom-client's aggregators). */
  readonly aggregator = 'sum' as const;
  protected readonly seriesByKey = new Map<string, Series>();

  constructor(
    readonly name: string,
    readonly help: string,
    readonly labelNames: readonly Name[],
  ) {}

  /** The series of these labels, created at first use; callers keep it and count on it directly. */
  series(labels: Labels<Name>): Series {
    const key = this.labelNames.map((name) => labels[name]).join('\u0000');
    let series = this.seriesByKey.get(key);
    if (!series) {
      series = this.create({ ...labels });
      this.seriesByKey.set(key, series);
    }
    return series;
  }

  registerIn(registry: Registry): this {
    // Not one of prom-client's classes, but the contract its Registry reads from one (see the top of this file).
    registry.registerMetric(this as unknown as Metric);
    return this;
  }

  reset(): void {
    this.seriesByKey.clear();
  }

  async get(): Promise<FamilySnapshot> {
    const values: Sample[] = [];
    for (const series of this.seriesByKey.values()) this.addValues(series, values);
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }

  protected abstract create(labels: Readonly<Record<string, string>>): Series;
  protected abstract addValues(series: Series, values: Sample[]): void;
}

export class CounterFamily<Name extends string> extends Family<Name, CounterSeries> {
  readonly type = 'counter';

  protected create(labels: Readonly<Record<string, string>>): CounterSeries {
    return new CounterSeries(labels);
  }

  protected addValues(series: CounterSeries, values: Sample[]): void {
    values.push({ labels: { ...series.labels }, value: series.value, metricName: this.name });
  }
}

export class HistogramFamily<Name extends string> extends Family<Name, HistogramSeries> {
  readonly type = 'histogram';

  constructor(name: string, help: string, labelNames: readonly Name[], readonly upperBounds: readonly number[]) {
    super(name, help, labelNames);
  }

  protected create(labels: Readonly<Record<string, string>>): HistogramSeries {
    return new HistogramSeries(labels, this.upperBounds);
  }

  protected addValues(series: HistogramSeries, values: Sample[]): void {
    // Prometheus buckets are cumulative: each counts every observation at or below its bound.
    let cumulative = 0;
    this.upperBounds.forEach((bound, index) => {
      cumulative += series.counts[index]!;
      values.push({ labels: { ...series.labels, le: bound }, value: cumulative, metricName: `${this.name}_bucket` });
    });
    values.push({ labels: { ...series.labels, le: '+Inf' }, value: series.count, metricName: `${this.name}_bucket` });
    values.push({ labels: { ...series.labels }, value: series.sum, metricName: `${this.name}_sum` });
    values.push({ labels: { ...series.labels }, value: series.count, metricName: `${this.name}_count` });
  }
}
