// Re-verifies every recorded NeMo Gym rollout in the repository with Gymflow's environments and
// writes the conformance table, docs/environments.md:
//   npx tsx scripts/conformance.ts
// tests/reverify/conformance.test.ts regenerates the table in memory and fails when the file is stale.
import { readdirSync, existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isGymError } from '../src/errors';
import { assistantMessage } from '../src/environments/example_single_tool_call';
import { environmentNames, getEnvironment } from '../src/environments/registry';
import type { AnyEnvironment, JudgeCall } from '../src/environments/types';
import { ResponseObject } from '../src/schemas/responses';
import { joinRollouts, readRows, reverifyRollouts, type NumberedRow, type Row } from '../src/reverify';
import { recordedJudgeExchanges, replayJudge, type JudgeExchange } from '../src/reverify/judge';
import { summarize, type Disagreement } from '../src/reverify/report';
import { flattenTransitions } from '../src/reverify/transitions';
import { isTrajectoryRow, withWholeEpisode } from '../src/environments/openair_congestion/recorded';
import { conversationJudgeExchanges, isConversationRow, withWholeConversation } from '../src/environments/conversational_tool_use_simulation/recorded';
import { isRecordedRollout, promptCriterion, recordedReplies, recordedTaskRow } from '../src/environments/vcqa/recorded';

const ROOT = path.resolve(import.meta.dirname, '..');
const FIXTURES = path.join(ROOT, 'tests/fixtures/nemo-gym');
export const DOC_FILE = path.join(ROOT, 'docs/environments.md');

/** Environments whose recorded rewards are known not to be all reproducible, and why. */
export const EXCEPTIONS: Record<string, string> = {
  agentif:
    "The recorded rewards are stale: an older NeMo Gym rewarded CSR (n_true / graded, e.g. 0.75), NeMo Gym 0.7.0's verify, and Gymflow, reward ISR (1 only when every graded constraint passes), and the judge's replies were not recorded. tests/environments/agentif.test.ts checks the recorded rewards are CSR, and that on the same responses and some 200 more cases NeMo Gym 0.7.0's verify, with a scripted judge replayed by prompt, and Gymflow agree on every reward, count and breakdown.",
  mcqa: 'One recorded reward is stale: NeMo Gym recorded 0.0 for `\\boxed{\\nC: …}` (example_rollouts.jsonl line 3), which its current verifier, and Gymflow, score 1.0.',
  blackjack: 'NeMo Gym deals from an unseeded random.Random(), so its recorded games cannot be dealt again: agreement is chance.',
  finance_agent_v2:
    "NeMo Gym records the rubric judge's votes, evidence and reasons but not its raw replies, and each criterion is asked up to three times with the same prompt, so the replay judge (one recorded reply per prompt) cannot play them back; tests/environments/finance_agent_v2.test.ts rebuilds each reply from the recorded votes and matches all 5 rewards and every rubric field.",
  workplace_assistant: 'The recorded rollouts are for tasks that are not in its example.jsonl: there is no ground truth to join them to.',
  osworld:
    "The recorded scores are OSWorld's evaluator reading the desktop VM after each episode, which the record does not keep: they cannot be recomputed offline (NeMo Gym's own verify, without a live desktop, answers 0 and masked too). tests/environments/osworld.test.ts checks that every recorded step parses to the actions NeMo Gym ran and every recorded reward is the binary mapping of its recorded score, and plays tasks against a FAKE desktop.",
  terminal_bench_2_1:
    "The recorded rollouts are golden-patch runs of tasks whose folders and container images are not shipped; where a reward is the content of reward.txt written by networked tests in the task's image, it cannot be recomputed. tests/environments/terminal_bench_2_1.test.ts re-verifies the two that timed out and lists the rest.",
  aviary_bixbench:
    "NeMo Gym's rows hold only task_idx, an index into BixBench's train split on Hugging Face, whose problems and data capsules are not shipped: the recorded episodes (whose input is the environment's opening, which the rows do not carry) join no row, and rows that carry it are refused for their missing capsule. None of the five submitted a solution, so each recorded reward is Aviary's 0 for an unsubmitted episode, which verify also gives; tests/environments/aviary_bixbench.test.ts checks the recorded tools and opening messages are Gymflow's, replays every well-formed edit_cell call to its recorded reply and notebook cells, and agrees with Aviary's own code on 196 cases of judging, notebook view, editing and listing.",
  swebench:
    "NeMo Gym's recorded rollouts are SWE-bench Multilingual runs (jq, tokio, rxjava, lucene, axios) kept without their task rows (its example rows are Verified ones) or test logs, and each reward is SWE-bench's verdict on tests run in the task's Docker Hub image: none can be recomputed offline. tests/environments/swebench.test.ts lists each and checks each reward is its recorded resolved; the grading is checked against SWE-bench 4.1.0's and NeMo Gym's own code on 672 eval scripts (every repository version of its table with a test command), 9,087 log parses and 32 verify outcomes.",
  deepswe:
    "The recorded rollouts are OpenCode runs on DeepSWE tasks that are not among the example rows, whose task store (the held-out verifiers) and images are not shipped: each binary reward is the task's own verifier's verdict and cannot be recomputed offline. tests/environments/deepswe.test.ts checks each reward follows from its recorded test counts and lists them; verify is checked against NeMo Gym's own on 35 outcomes and its task store on 28 task folders.",
  pinchbench:
    "Three of the five recorded rewards (the automated tasks) are reproduced with `--env-option today=2026-06-29`, the day the rollouts ran (the calendar check counts 'next Tuesday' from the grading day, which NeMo Gym does not record); the other two are graded by PinchBench's LLM judge, whose replies NeMo Gym does not record. tests/environments/pinchbench.test.ts checks both.",
};

/** NeMo Gym benchmarks Gymflow runs over one of these environments with settings (`configs/benchmarks/`), and how they were checked. */
const BENCHMARKS: { config: string; env: string; grades: string; checked: string }[] = [
  {
    config: 'configs/benchmarks/mmlu-prox.yaml',
    env: 'mcqa',
    grades: "MMLU-ProX's 29 languages, NeMo Gym's benchmarks/mmlu_prox: the row's option letter by its language's answer pattern.",
    checked: 'Rows not shipped (Hugging Face); mcqa as above.',
  },
  {
    config: 'configs/benchmarks/hle-vision.yaml',
    env: 'equivalence_llm_judge',
    grades: 'HLE text and image questions, NeMo Gym\'s benchmarks/hle/config_vision: the image passed through the gateway to the policy, which also judges with HLE\'s prompt ("Judgement: yes").',
    checked:
      "NeMo Gym ships no HLE rollouts (cais/hle is gated): tests/environments/hle_vision.test.ts agrees with NeMo Gym 0.7.0's own verify, configured by config_vision.yaml, on 224 cases (verdicts and judge prompts) over the four example rows in hle-vision/, and tests/e2e/judge-e2e.test.ts runs them end to end.",
  },
];

/** Context for a row that agrees, where the table alone would mislead. */
const NOTES: Record<string, string> = {
  vcqa: "NeMo Gym ships the recorded rollouts without their task rows (a private held-out split): each row is rebuilt from the must-have criteria the rollout records (the task file named is the rollouts' own), and each criterion's recorded judge reply (judge_per_item[].raw) answers the prompt Gymflow renders for it. tests/environments/vcqa.test.ts checks every tool against NeMo Gym 0.7.0's own code on four working trees.",
  aviary_gsm8k:
    "Recorded by NeMo Gym's aviary agent as transitions (read as the last, whole episode) for task_idx rows; Gymflow's rows carry the GSM8K question and answer. Replayed through the calculator and submit_answer tools.",
  aviary_hotpotqa:
    "Recorded by NeMo Gym's aviary agent as transitions for task_idx rows, its search and lookup reading live Wikipedia; Gymflow's rows carry the HotpotQA question and answer and a snapshot of the Wikipedia answers the episodes saw, and tests/environments/aviary_hotpotqa.test.ts checks every recorded tool output is replayed exactly.",
  equivalence_llm_judge: "Recorded with NeMo Gym's OpenQA settings (a second, swapped judge call); the registered environment has the shipped settings (one call) and still agrees.",
  longmemeval: "NeMo Gym records only the judge's verdict text (judge_raw); it is replayed as the reply to the rubric prompt Gymflow renders.",
  image_tools:
    "PivotRL pivots with images in their input; tests/environments/image_tools.test.ts agrees with NeMo Gym 0.7.0's own verify on 1,416 more cases in four modes, and tests/environments/image_tools.ops.test.ts checks the image operations (sharp) against its PIL ones.",
  finance_sec_search:
    "NeMo Gym records only the judge's reply text (judge_text); it is replayed as the reply to the prompt Gymflow renders. The recorded sec_filing_search outputs are the offline corpus (data/filings.jsonl), and tests/environments/finance_sec_search.test.ts checks each is answered again exactly; parse_html_page and retrieve_information need SEC.gov and a retrieval model.",
  openair_congestion:
    "Recorded by NeMo Gym's scripted relief policy as a `trajectory` of steps (only the last call in `response`); the whole episode is rebuilt from the trajectory and replayed through reset/step.",
  math_with_judge:
    "Recorded with NeMo Gym's judge on; the registered environment (NeMo Gym's shipped config) uses the library check only and still agrees, since the judge called both failures not equivalent.",
  wmt_translation: 'The reward (chrF / 100) is reproduced exactly; spBLEU (FLORES-200 SentencePiece model), xCOMET and language ID need downloads and are reported unavailable.',
  conversational_tool_use_simulation:
    "NeMo Gym's transcript moves the customer's opening message into the input and stops before the closing one; both are put back from the recorded `result.trajectory`, whose per-message judge replies are replayed to the prompts Gymflow renders. tests/environments/conversational_tool_use_simulation.test.ts also matches every recorded label, reason and verdict.",
  social_bias: "Reference rollouts (policy answer + recorded judgments); the judge prompts are rendered by Gymflow, and tests/environments/social_bias.test.ts checks they hash like NeMo Gym's.",
};

export interface FileCheck {
  file: string;
  tasksFile?: string;
  rows: number;
  checked: number;
  compared: number;
  agreed: number;
  disagreements: Disagreement[];
  judgeFailed: number;
  verifyErrors: number;
  unjoined: number;
  error?: string;
}

export interface EnvRow {
  name: string;
  env?: AnyEnvironment;
  files: FileCheck[];
  /** Rollouts in the files, whether or not they could be checked. */
  recorded: number;
}

const rel = (file: string) => path.relative(ROOT, file);
const jsonlIn = (dir: string) =>
  existsSync(dir)
    ? readdirSync(dir)
        .filter((f) => f.endsWith('.jsonl'))
        .map((f) => path.join(dir, f))
    : [];
const isRolloutFile = (file: string) => /^example_rollouts.*\.jsonl$/.test(path.basename(file)) && !file.endsWith('_materialized_inputs.jsonl');

interface Source {
  env: string;
  file: string;
  /** Task files the rollouts may have been played from: the rest of the folder, and the environment's own data. */
  candidates: string[];
}

function sources(): Source[] {
  const dirs = [
    ...readdirSync(FIXTURES, { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => ({ env: d.name, dir: path.join(FIXTURES, d.name) })),
    ...readdirSync(path.join(ROOT, 'src/environments'), { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => ({ env: d.name, dir: path.join(ROOT, 'src/environments', d.name, 'data') })),
  ];
  return dirs.flatMap(({ env, dir }) => {
    const own = path.join(ROOT, 'src/environments', env, 'data');
    const candidates = [...new Set([...jsonlIn(dir), ...jsonlIn(own)])].filter((f) => !/rollouts/.test(path.basename(f)));
    return jsonlIn(dir)
      .filter(isRolloutFile)
      .map((file) => ({ env, file, candidates }));
  });
}

/** The candidate task file that joins the most rollouts (stateless join, so trying each is cheap). */
async function bestTasks(rollouts: NumberedRow[], candidates: string[]) {
  let best: { file: string; rows: NumberedRow[]; joined: number } | undefined;
  for (const file of candidates) {
    const rows = await readRows(file, 'tasks');
    const joined = joinRollouts(rollouts, rows, () => false).joined.length;
    if (joined > (best?.joined ?? 0)) best = { file, rows, joined };
  }
  return best;
}

/**
 * social_bias ships reference rollouts (policy answer + the two recorded judgments) rather than rollout
 * rows. As rollout rows: the task's input, the answer as one assistant message; the judgments become
 * judge exchanges keyed by the prompts Gymflow renders for them.
 */
export async function bbqReferenceRollouts(env: AnyEnvironment, references: NumberedRow[], tasks: NumberedRow[]) {
  const rollouts: NumberedRow[] = [];
  const exchanges: JudgeExchange[] = [];
  for (const { line, row: ref } of references) {
    const task = tasks.find((t) => (t.row.expected_values as { provenance_id?: string } | undefined)?.provenance_id === ref.provenance_id)?.row;
    if (!task) {
      rollouts.push({ line, row: ref });
      continue;
    }
    const response = { id: `resp_${String(ref.provenance_id)}`, object: 'response' as const, output: [assistantMessage(String(ref.policy_response))] };
    const judge: JudgeCall = async (params) => {
      const check = (params.text as { format?: { name?: string } } | undefined)?.format?.name ?? '';
      const output = [assistantMessage(JSON.stringify(check.includes('answer_check') ? ref.answer_judgment : ref.explanation_judgment))];
      exchanges.push({ responses_create_params: { input: params.input }, response: { output } });
      return { id: 'resp_judge', object: 'response', output };
    };
    await env.verify(env.taskSchema.parse(task), response, { state: null, judge });
    rollouts.push({ line, row: { responses_create_params: task.responses_create_params, response, reward: ref.reward } });
  }
  return { rollouts, exchanges };
}

/** The judge's reply text a rollout recorded without its exchange: longmemeval's `judge_raw`, finance_sec_search's `judge_text`. */
function recordedVerdictText(rollout: Row): string | undefined {
  const text = typeof rollout.judge_raw === 'string' ? rollout.judge_raw : rollout.judge_text;
  return typeof text === 'string' && text !== '' ? text : undefined;
}

/**
 * longmemeval and finance_sec_search record only the judge's verdict text, not the exchange. Each joined rollout
 * is verified once with a judge that answers that text, and the prompt Gymflow rendered becomes the exchange.
 */
async function judgeRawExchanges(env: AnyEnvironment, rollouts: NumberedRow[], tasks: NumberedRow[] | undefined): Promise<JudgeExchange[]> {
  const exchanges: JudgeExchange[] = [];
  for (const { rollout, task } of joinRollouts(rollouts, tasks, () => false).joined) {
    const text = recordedVerdictText(rollout);
    if (text === undefined) continue;
    const output = [assistantMessage(text)];
    const judge: JudgeCall = async (params) => {
      exchanges.push({ responses_create_params: { input: params.input }, response: { output } });
      return { id: 'resp_judge', object: 'response', output };
    };
    await env.verify(env.taskSchema.parse(task), ResponseObject.parse(rollout.response), { state: null, judge });
  }
  return exchanges;
}

/**
 * vcqa's recorded rollouts come without their task rows (NeMo Gym's held-out split is private): the rows are
 * rebuilt from the recorded criteria, and each recorded per-item reply becomes the judge's reply to the prompt
 * Gymflow renders for that criterion.
 */
async function vcqaRebuilt(env: AnyEnvironment, recorded: NumberedRow[]) {
  const rows = recorded.map(({ line, row }) => ({ line, row: recordedTaskRow(row) as Row }));
  const exchanges: JudgeExchange[] = [];
  for (const [i, { row }] of recorded.entries()) {
    const replies = recordedReplies(row);
    const judge: JudgeCall = async (params) => {
      const raw = replies.get(promptCriterion((params.input as { content: string }[]).at(-1)!.content));
      const output = typeof raw === 'string' ? [assistantMessage(raw)] : [];
      exchanges.push({ responses_create_params: { input: params.input }, response: { output } });
      return { id: 'resp_judge', object: 'response', output };
    };
    await env.verify(env.taskSchema.parse(rows[i]!.row), ResponseObject.parse(row.response), { state: null, judge });
  }
  return { rows, exchanges };
}

async function checkFile(env: AnyEnvironment, source: Source): Promise<FileCheck> {
  const recorded = await readRows(source.file, 'rollouts');
  const base: FileCheck = { file: rel(source.file), rows: recorded.length, checked: 0, compared: 0, agreed: 0, disagreements: [], judgeFailed: 0, verifyErrors: 0, unjoined: 0 };
  try {
    let rollouts = recorded.map(({ line, row }) => ({ line, row: isConversationRow(row) ? withWholeConversation(row) : isTrajectoryRow(row) ? withWholeEpisode(row) : flattenTransitions(row) }));
    let exchanges = recordedJudgeExchanges(recorded.map((r) => r.row));
    if (!exchanges.length) exchanges = recorded.flatMap(({ row }) => (isConversationRow(row) ? conversationJudgeExchanges(row) : []));
    if (recorded.every((r) => 'policy_response' in r.row)) {
      const example = source.candidates.find((c) => path.basename(c) === 'example.jsonl');
      ({ rollouts, exchanges } = await bbqReferenceRollouts(env, recorded, example ? await readRows(example, 'tasks') : []));
    }
    // A conversation's input is its domain's policy prompt, shared by every scenario of the domain, so joining by
    // input could pick another scenario; NeMo Gym's recorded rows carry every task field and are their own tasks.
    let tasks = recorded.every((r) => isConversationRow(r.row)) ? undefined : await bestTasks(rollouts, source.candidates);
    if (recorded.length && recorded.every((r) => isRecordedRollout(r.row))) {
      const rebuilt = await vcqaRebuilt(env, recorded);
      tasks = { file: source.file, rows: rebuilt.rows, joined: rebuilt.rows.length };
      exchanges = rebuilt.exchanges;
    }
    if (exchanges.length === 0 && rollouts.some((r) => recordedVerdictText(r.row) !== undefined)) exchanges = await judgeRawExchanges(env, rollouts, tasks?.rows);
    const report = await reverifyRollouts({
      env,
      rollouts,
      tasks: tasks?.rows,
      force: true,
      skipUnjoined: true,
      judge: exchanges.length || env.requiresJudge ? replayJudge(exchanges) : undefined,
    });
    const summary = summarize(report);
    return {
      ...base,
      tasksFile: tasks && rel(tasks.file),
      checked: report.checked.length,
      compared: summary.compared,
      agreed: summary.agreed,
      disagreements: summary.disagreements,
      judgeFailed: summary.judgeFailed.length,
      verifyErrors: summary.verifyErrors.length,
      unjoined: report.unjoined.length,
    };
  } catch (e) {
    if (!isGymError(e)) throw e;
    return { ...base, error: [e.message, ...(e.details ?? [])].join('; ') };
  }
}

function registered(name: string): AnyEnvironment | undefined {
  return environmentNames().includes(name) ? getEnvironment(name) : undefined;
}

export async function conformance(): Promise<EnvRow[]> {
  const all = sources();
  const names = [...new Set([...environmentNames(), ...all.map((s) => s.env)])].sort();
  const rows: EnvRow[] = [];
  for (const name of names) {
    const env = registered(name);
    const mine = all.filter((s) => s.env === name);
    const files: FileCheck[] = [];
    let recorded = 0;
    for (const source of mine) {
      if (env) {
        const check = await checkFile(env, source);
        files.push(check);
        recorded += check.rows;
      } else {
        recorded += (await readRows(source.file, 'rollouts')).length;
      }
    }
    rows.push({ name, env, files, recorded });
  }
  return rows;
}

const sum = (files: FileCheck[], key: 'checked' | 'compared' | 'agreed' | 'judgeFailed' | 'verifyErrors' | 'unjoined') => files.reduce((n, f) => n + f[key], 0);
// Escaped so `|` cannot split a cell and `<action>`-like text is not taken for an HTML tag.
const cell = (text: string) => text.replace(/[|<]/g, '\\$&');

function notes(row: EnvRow): string {
  const parts: string[] = [];
  if (!row.env) parts.push(`Pending: not registered yet (${row.recorded} recorded rollouts waiting).`);
  else if (!row.files.length) parts.push('No recorded rollouts.');
  if (EXCEPTIONS[row.name]) parts.push(EXCEPTIONS[row.name]!);
  if (NOTES[row.name]) parts.push(NOTES[row.name]!);
  if (row.env?.requiresJudge && row.files.length) parts.push('Judge replies replayed from the recording.');
  const unjoined = sum(row.files, 'unjoined');
  if (unjoined) parts.push(`${unjoined} rollout(s) have no task row.`);
  const failed = sum(row.files, 'judgeFailed') + sum(row.files, 'verifyErrors');
  if (failed) parts.push(`${failed} rollout(s) failed to verify.`);
  for (const f of row.files) if (f.error) parts.push(`${f.file}: ${f.error}`);
  return parts.join(' ');
}

function tableRow(row: EnvRow): string {
  const env = row.env;
  const checked = sum(row.files, 'checked');
  const cells = [
    `\`${row.name}\``,
    env?.description ?? '—',
    env ? (env.agent ?? 'simple_agent') : '—',
    env ? (env.reverifyMode === 'stateful' ? 'yes' : 'no') : '—',
    env ? (env.requiresJudge ? 'yes' : 'no') : '—',
    env ? (env.evaluationOnly ? 'eval' : 'train, eval') : '—',
    env ? String(checked) : '—',
    env && row.files.length ? `${sum(row.files, 'agreed')}/${sum(row.files, 'compared')}` : '—',
    notes(row),
  ];
  return `| ${cells.map(cell).join(' | ')} |`;
}

function fileLine(f: FileCheck): string {
  const tasks = f.tasksFile ? `tasks \`${f.tasksFile}\`` : f.checked ? 'no task file joins; each rollout graded as its own task' : 'no task file joins';
  const disagree = f.disagreements.map((d) => `line ${d.line}: ${d.recorded} → ${d.recomputed}`).join(', ');
  return `- \`${f.file}\` (${tasks}): ${f.agreed}/${f.compared} agree${disagree ? `; differs at ${disagree}` : ''}`;
}

export function renderDoc(rows: EnvRow[]): string {
  const checkedFiles = rows.flatMap((r) => r.files);
  return [
    '# Environments',
    '',
    'Every environment Gymflow serves, and how closely it reproduces NeMo Gym. The table is generated by',
    '`npx tsx scripts/conformance.ts` (do not edit it by hand; `tests/reverify/conformance.test.ts` fails when it is stale).',
    'The script runs the `gym eval reverify` library over every recorded NeMo Gym rollout file in the repository',
    '(`tests/fixtures/nemo-gym/<env>/example_rollouts*.jsonl` and `src/environments/<env>/data/example_rollouts*.jsonl`):',
    "each rollout is joined to its task row (by `_ng_task_index` or identical input, in whichever of the folder's task",
    'files joins the most), its recorded episode is verified again by the registered environment — stateful ones',
    'after replaying the recorded tool calls into a fresh session, judge environments with the judge replies recorded',
    'with the rollouts — and the recomputed reward is compared with the one NeMo Gym recorded (equal to 1e-9).',
    '`use`: `eval` marks a benchmark without a training split (NeMo Gym ships only benchmark and example data for',
    'it), whose rollouts are for evaluation only; `gym eval export-training` warns on such a run.',
    '',
    '| environment | grades | agent | stateful | judge | use | rollouts checked | agreement | notes |',
    '|---|---|---|---|---|---|---|---|---|',
    ...rows.map(tableRow),
    '',
    '## Files checked',
    '',
    ...checkedFiles.map(fileLine),
    '',
    '## Benchmarks over these environments',
    '',
    '| config | environment | grades | checked |',
    '|---|---|---|---|',
    ...BENCHMARKS.map((b) => `| \`${b.config}\` | \`${b.env}\` | ${cell(b.grades)} | ${cell(b.checked)} |`),
    '',
  ].join('\n');
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const rows = await conformance();
  await writeFile(DOC_FILE, renderDoc(rows));
  console.log(`wrote ${rel(DOC_FILE)}: ${rows.length} environments, ${rows.reduce((n, r) => n + sum(r.files, 'checked'), 0)} rollouts checked`);
}
