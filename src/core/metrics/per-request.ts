// The metrics every request touches (the request histogram, the invocations counter), kept in
// plain arrays per label set: prom-client's own Histogram and Counter hash the label set on every
// observation, a child's too, which on the runtime's hot path costs more than the rest of the
// bookkeeping. prom-client's registry still writes them out: each is a metric it calls get() on.
import type { Registry } from 'prom-client';

type Labels = Record<string, string>;
interface Value {
  labels: Labels;
  value: number;
  metricName?: string;
}

abstract class PerRequestMetric<C> {
  private readonly children: { labels: Labels; data: C }[] = [];
  /** The data of each label set, by its values joined. */
  private readonly byValues = new Map<string, C>();

  constructor(
    readonly name: string,
    readonly help: string,
    readonly type: 'histogram' | 'counter',
    private readonly labelNames: readonly string[],
    registry: Registry,
  ) {
    // prom-client's registry takes any metric with a name, help, type and get().
    registry.registerMetric(this as never);
  }

  /** The data of one label set (values in labelNames order); keep it: finding it again is the cost. */
  protected childData(values: readonly string[], make: () => C): C {
    const key = values.join('\u0000');
    const known = this.byValues.get(key);
    if (known) return known;
    const labels: Labels = {};
    this.labelNames.forEach((name, i) => (labels[name] = values[i]!));
    const data = make();
    this.children.push({ labels, data });
    this.byValues.set(key, data);
    return data;
  }

  protected abstract valuesOf(labels: Labels, data: C): Value[];

  protected abstract zero(data: C): void;

  get(): { name: string; help: string; type: string; values: Value[]; aggregator: 'sum' } {
    return { name: this.name, help: this.help, type: this.type, values: this.children.flatMap((c) => this.valuesOf(c.labels, c.data)), aggregator: 'sum' };
  }

  /** Registry.resetMetrics(): the counts start again (the children stay: their holders keep them). */
  reset(): void {
    for (const child of this.children) this.zero(child.data);
  }
}

interface HistogramData {
  /** Observations per bucket (not cumulative); the last is over every bound (+Inf). */
  counts: number[];
  sum: number;
}

export class RequestHistogram extends PerRequestMetric<HistogramData> {
  constructor(name: string, help: string, labelNames: readonly string[], private readonly buckets: readonly number[], registry: Registry) {
    super(name, help, 'histogram', labelNames, registry);
  }

  child(values: readonly string[]): { observe(value: number): void } {
    const buckets = this.buckets;
    const data = this.childData(values, () => ({ counts: new Array<number>(buckets.length + 1).fill(0), sum: 0 }));
    return {
      observe(value: number) {
        let i = 0;
        while (i < buckets.length && value > buckets[i]!) i++;
        data.counts[i]!++;
        data.sum += value;
      },
    };
  }

  protected zero(data: HistogramData): void {
    data.counts.fill(0);
    data.sum = 0;
  }

  protected valuesOf(labels: Labels, data: HistogramData): Value[] {
    const values: Value[] = [];
    let cumulative = 0;
    this.buckets.forEach((bound, i) => {
      cumulative += data.counts[i]!;
      values.push({ labels: { ...labels, le: String(bound) }, value: cumulative, metricName: `${this.name}_bucket` });
    });
    cumulative += data.counts[this.buckets.length]!;
    values.push({ labels: { ...labels, le: '+Inf' }, value: cumulative, metricName: `${this.name}_bucket` });
    values.push({ labels, value: data.sum, metricName: `${this.name}_sum` });
    values.push({ labels, value: cumulative, metricName: `${this.name}_count` });
    return values;
  }
}

export class RequestCounter extends PerRequestMetric<{ value: number }> {
  constructor(name: string, help: string, labelNames: readonly string[], registry: Registry) {
    super(name, help, 'counter', labelNames, registry);
  }

  child(values: readonly string[]): { inc(): void } {
    const data = this.childData(values, () => ({ value: 0 }));
    return {
      inc() {
        data.value++;
      },
    };
  }

  protected zero(data: { value: number }): void {
    data.value = 0;
  }

  protected valuesOf(labels: Labels, data: { value: number }): Value[] {
    return [{ labels, value: data.value }];
  }
}
