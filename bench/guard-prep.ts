// Guard-prep bench: request preparation (JSON.parse + guard validation) for small bodies, with an
// enum/length schema, the same with a `pattern`, and with a `pattern` plus `maxLength`; our
// compiled guard (TypeBox TypeCompiler) against Ajv, each as a ratio to JSON.parse alone, to test
// the spec's claim that a pattern roughly doubles preparation time.
// Run: node_modules/.bin/bun bench/guard-prep.ts   (from the repository root)
import Ajv2020 from 'ajv/dist/2020';
import { compileGuardSchema } from '../runtime/guard/index.ts';
import { table } from './lib/table.ts';
import { throughput } from './lib/timing.ts';

const CODE = '^[A-Z]{3}-[0-9]{4}$';

function schemaWith(code: Record<string, unknown>) {
  return {
    type: 'object',
    properties: {
      name: { type: 'string', minLength: 1, maxLength: 64 },
      kind: { enum: ['retail', 'wholesale', 'internal'] },
      qty: { type: 'integer', minimum: 1, maximum: 1000 },
      code: { type: 'string', ...code },
    },
    required: ['name', 'kind', 'qty', 'code'],
    additionalProperties: false,
  };
}

const variants = [
  // Reference only: `code` checked for its type alone, to show what the code rule itself costs.
  { name: 'types only', schema: schemaWith({}) },
  { name: 'enum/length', schema: schemaWith({ minLength: 8, maxLength: 8 }) },
  { name: 'pattern', schema: schemaWith({ pattern: CODE }) },
  { name: 'pattern + maxLength', schema: schemaWith({ pattern: CODE, maxLength: 8 }) },
];

// Several bodies in turn, so no engine can specialise on one string; all valid for every variant.
const bodies = [
  { name: 'Widget', kind: 'retail', qty: 3, code: 'ABC-1234' },
  { name: 'Gadget deluxe', kind: 'wholesale', qty: 120, code: 'XYZ-0001' },
  { name: 'Ünïcödé thing', kind: 'internal', qty: 1, code: 'QRS-9876' },
  { name: 'A', kind: 'retail', qty: 1000, code: 'MNO-5555' },
].map((b) => JSON.stringify(b));

const REPEAT = 64;
let sink = 0;

/** JSON.parse then validate, over the bodies in turn; `validate` absent = the JSON.parse baseline. */
function prepare(validate: ((value: unknown) => boolean) | undefined, texts: readonly string[]): () => number {
  return () => {
    for (let r = 0; r < REPEAT; r++) {
      for (const text of texts) {
        const value = JSON.parse(text);
        if (validate ? !validate(value) : value === null) sink++;
      }
    }
    return REPEAT * texts.length;
  };
}

/** Validation alone, over values parsed beforehand: the part the schemas differ in, without parse noise. */
function validateOnly(validate: (value: unknown) => boolean, values: readonly unknown[]): () => number {
  return () => {
    for (let r = 0; r < REPEAT; r++) for (const value of values) if (!validate(value)) sink++;
    return REPEAT * values.length;
  };
}

const ajv = new Ajv2020({ strict: false, unicodeRegExp: true });
const validators = variants.flatMap((v) => {
  const compiled = compileGuardSchema(v.schema);
  if (!compiled.ok) throw new Error(JSON.stringify(compiled.errors));
  const ajvCheck = ajv.compile(v.schema);
  return [
    { name: `guard (TypeBox) · ${v.name}`, who: 'guard (TypeBox)', variant: v.name, check: compiled.guard.check },
    { name: `Ajv · ${v.name}`, who: 'Ajv', variant: v.name, check: (x: unknown) => ajvCheck(x) as boolean },
  ];
});

const ROUNDS = { rounds: 9, roundMs: 300, warmupMs: 500 };

function measure(texts: readonly string[]) {
  const prep = throughput([{ name: 'JSON.parse alone', batch: prepare(undefined, texts) }, ...validators.map((v) => ({ name: v.name, batch: prepare(v.check, texts) }))], ROUNDS);
  const values = texts.map((t) => JSON.parse(t));
  const alone = throughput(validators.map((v) => ({ name: v.name, batch: validateOnly(v.check, values) })), ROUNDS);
  return { prep, alone };
}

const ns = (rate: number) => (1e9 / rate).toFixed(0);

function report(title: string, texts: readonly string[]) {
  const { prep, alone } = measure(texts);
  const parse = prep.get('JSON.parse alone')!;
  console.log(`\n${title}`);
  console.log(
    table(
      ['validator · schema', 'validate ns', 'parse+validate ns', 'prep vs JSON.parse', 'prep vs enum/length'],
      [
        ['JSON.parse alone', '-', ns(parse), '1.00×', '-'],
        ...validators.map((v) => {
          const rate = prep.get(v.name)!;
          const base = prep.get(`${v.who} · enum/length`)!;
          return [v.name, ns(alone.get(v.name)!), ns(rate), (parse / rate).toFixed(2) + '×', (base / rate).toFixed(2) + '×'];
        }),
      ],
    ),
  );
}

console.log(`Bun ${Bun.version}, ${navigator.hardwareConcurrency} cores; ${bodies.length} bodies of ${Math.min(...bodies.map((b) => b.length))}-${Math.max(...bodies.map((b) => b.length))} bytes; median of ${ROUNDS.rounds} interleaved rounds`);
report('Valid small bodies', bodies);

// Long input: a pattern that must read the whole string (a character-class check) on a 4 KiB
// value. Without maxLength the regular expression scans all of it; with maxLength the length test
// refuses it first. Validation alone, since parsing 4 KiB would hide the difference.
const scanning = '^[A-Za-z0-9 ]+$';
const longVariants = [
  { name: 'pattern', schema: { type: 'string', pattern: scanning } },
  { name: 'pattern + maxLength 64', schema: { type: 'string', pattern: scanning, maxLength: 64 } },
];
const longValue = 'Widget 42 '.repeat(410);
const longRates = throughput(
  longVariants.flatMap((v) => {
    const compiled = compileGuardSchema(v.schema);
    if (!compiled.ok) throw new Error(JSON.stringify(compiled.errors));
    const ajvCheck = ajv.compile(v.schema);
    return [
      { name: `guard (TypeBox) · ${v.name}`, batch: validateOnly(compiled.guard.check, [longValue]) },
      { name: `Ajv · ${v.name}`, batch: validateOnly((x) => ajvCheck(x) as boolean, [longValue]) },
    ];
  }),
  ROUNDS,
);
console.log(`\nA ${longValue.length}-character string against ${scanning}: validation alone`);
console.log(table(['validator · schema', 'validate ns'], [...longRates].map(([name, rate]) => [name, ns(rate)])));

if (sink === -1) console.log('');
