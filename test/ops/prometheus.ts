// A strict reader of the Prometheus text exposition format (0.0.4), for tests: every line must be
// a HELP, a TYPE or a sample, or the parse fails naming it.

interface Sample {
  name: string;
  /** The metric family: the name without a histogram's _bucket/_sum/_count. */
  family: string;
  labels: Record<string, string>;
  value: number;
}

export interface Exposition {
  samples: Sample[];
  /** Family → counter | gauge | histogram | summary | untyped. */
  types: Map<string, string>;
  help: Map<string, string>;
}

const NAME = '[a-zA-Z_:][a-zA-Z0-9_:]*';
const SAMPLE = new RegExp(`^(${NAME})(?:\\{(.*)\\})? (\\S+)(?: -?\\d+)?$`);
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)",?/gy;

export function parseExposition(text: string): Exposition {
  const out: Exposition = { samples: [], types: new Map(), help: new Map() };
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const help = new RegExp(`^# HELP (${NAME}) (.*)$`).exec(line);
    if (help) {
      out.help.set(help[1]!, help[2]!);
      continue;
    }
    const type = new RegExp(`^# TYPE (${NAME}) (counter|gauge|histogram|summary|untyped)$`).exec(line);
    if (type) {
      out.types.set(type[1]!, type[2]!);
      continue;
    }
    const m = SAMPLE.exec(line);
    if (!m) throw new Error(`not a line of the Prometheus text format: ${line}`);
    const labels: Record<string, string> = {};
    const raw = m[2] ?? '';
    LABEL.lastIndex = 0;
    let consumed = 0;
    for (let l = LABEL.exec(raw); l; l = LABEL.exec(raw)) {
      labels[l[1]!] = l[2]!.replace(/\\(["\\n])/g, (_, c: string) => (c === 'n' ? '\n' : c));
      consumed = LABEL.lastIndex;
    }
    if (consumed !== raw.length) throw new Error(`malformed labels: ${line}`);
    const value = m[3] === '+Inf' ? Infinity : m[3] === '-Inf' ? -Infinity : Number(m[3]);
    if (Number.isNaN(value) && m[3] !== 'NaN') throw new Error(`malformed value: ${line}`);
    const name = m[1]!;
    const family = out.types.has(name) ? name : name.replace(/_(bucket|sum|count)$/, '');
    out.samples.push({ name, family, labels, value });
  }
  return out;
}

/** The value of the sample named `name` with exactly these labels, or undefined. */
export function sample(exposition: Exposition, name: string, labels: Record<string, string>): number | undefined {
  const wanted = Object.entries(labels);
  return exposition.samples.find((x) => x.name === name && Object.keys(x.labels).length === wanted.length && wanted.every(([k, v]) => x.labels[k] === v))?.value;
}
