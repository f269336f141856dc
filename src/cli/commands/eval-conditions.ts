// `gym eval run --condition NAME=spec.yaml …`: the same benchmark once per condition (a model spec file
// each, e.g. a fixed and a routed Switchyard route), each into its own run folder under --output, in
// order, then one comparison per condition printed and kept in <output>/conditions.json.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { GymError } from '../../errors';
import { formatConditions, readConditions, type Prices } from '../../report/conditions';
import { writeFileAtomic } from '../../store/jsonl';
import { requireFlag } from '../args';

type Values = Record<string, string | boolean | string[] | undefined>;

export interface Condition {
  name: string;
  specFile: string;
}

const NAME = /^[A-Za-z0-9._-]{1,64}$/;
/** Flags that name one run's model or folder: each condition has its own. */
const PER_CONDITION = ['model', 'model-spec', 'run-id', 'detach'] as const;

/** The `--condition NAME=FILE` flags, checked; undefined when there are none. */
export function conditionsFlag(values: Values): Condition[] | undefined {
  const given = values.condition as string[] | undefined;
  if (given === undefined) return undefined;
  for (const flag of PER_CONDITION)
    if (values[flag] !== undefined) throw new GymError('BAD_FLAG', `--${flag} does not go with --condition: each condition's spec file names its model, and each runs into <output>/<name>`);
  const conditions = given.map((text) => {
    const eq = text.indexOf('=');
    const name = text.slice(0, eq);
    const specFile = text.slice(eq + 1);
    if (eq < 1 || !specFile) throw new GymError('BAD_FLAG', `--condition: "${text}" is not NAME=FILE (a model spec file, e.g. fixed=fixed.yaml)`);
    if (!NAME.test(name)) throw new GymError('BAD_FLAG', `--condition: "${name}" is not a condition name (letters, digits and . _ - only; it names the run folder)`);
    if (!existsSync(specFile)) throw new GymError('NOT_FOUND', `--condition ${name}: model spec file ${specFile} does not exist`);
    return { name, specFile: path.resolve(specFile) };
  });
  const names = conditions.map((c) => c.name);
  const twice = names.find((n, i) => names.indexOf(n) !== i);
  if (twice) throw new GymError('BAD_FLAG', `--condition: "${twice}" is named twice`);
  if (conditions.length < 2) throw new GymError('BAD_FLAG', '--condition: give at least two conditions to compare (e.g. --condition fixed=fixed.yaml --condition routed=routed.yaml)');
  return conditions;
}

/** `--price MODEL=IN,OUT`: USD per million input and output tokens of the model or target that served. */
export function pricesFlag(values: Values): Prices {
  const prices: Prices = {};
  for (const text of (values.price as string[] | undefined) ?? []) {
    const m = /^(.+)=([0-9.]+),([0-9.]+)$/.exec(text);
    if (!m || !Number.isFinite(Number(m[2])) || !Number.isFinite(Number(m[3])))
      throw new GymError('BAD_FLAG', `--price: "${text}" is not MODEL=IN,OUT (USD per million input and output tokens, e.g. fake/strong=3,15)`);
    prices[m[1]!] = { input: Number(m[2]), output: Number(m[3]) };
  }
  return prices;
}

export async function runConditions(opts: {
  conditions: Condition[];
  values: Values;
  usage: string;
  runOne: (flags: Values) => Promise<{ runDir: string; finished: boolean }>;
  say: (line: string) => void;
}): Promise<void> {
  const { conditions, values, say } = opts;
  const output = path.resolve(requireFlag(values, 'output', opts.usage));
  const prices = pricesFlag(values);
  const runs: { name: string; runDir: string; finished: boolean }[] = [];
  for (const c of conditions) {
    say(`condition ${c.name}: ${c.specFile}`);
    const run = await opts.runOne({ ...values, condition: undefined, price: undefined, 'model-spec': c.specFile, output: path.join(output, c.name) });
    runs.push({ name: c.name, ...run });
  }
  if (values['dry-run']) return;
  const unfinished = runs.filter((r) => !r.finished).map((r) => r.name);
  if (unfinished.length)
    throw new GymError('INCOMPLETE', `condition(s) ${unfinished.join(', ')} did not finish; resume them (gym eval resume <output>/<name>), then run the same command again to compare`);
  const rows = await readConditions(runs, prices);
  await writeFileAtomic(path.join(output, 'conditions.json'), `${JSON.stringify({ conditions: rows, prices }, null, 2)}\n`);
  say('');
  say(formatConditions(rows));
  say(`comparison: ${path.join(output, 'conditions.json')}`);
}
