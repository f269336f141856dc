// One rollout's model calls rebuilt into the one training response a trainer consumes: the chain of
// calls from the first prompt to the call whose answer was scored, every other call accounted for.
import type { CompactionSummary } from '../agents/history-policy';
import type { CompactedCall, DroppedCall, DropReason, MaskReason, TrainingRecord, UsedCall } from './schema';
import type { BundleResult, TokenBundle } from './tokens';

/** What the call log says about one call, reduced to what the rebuild needs. */
export interface CallEvidence {
  call_id: string;
  step: number;
  attempt: number;
  /** ms since the epoch; orders calls whose tokens cannot. */
  started_at?: number;
  role?: 'policy' | 'judge';
  /** An answer came back (no error, a response): a generation exists. */
  answered: boolean;
  tokens: BundleResult;
  /** turnKey() of the call's answer: its model-authored content. */
  answer_key: string;
  response_id?: string;
  /** What the run's history policy left out of the call's input: its prompt need not extend the turn before. */
  compaction?: CompactionSummary;
}

/** What the rollout's record says about how the episode ended. */
export interface EpisodeOutcome {
  rollout_id: string;
  task_index: number;
  rollout_index: number;
  reward: number;
  /** The calls of the agent's turns, in order (`_gf_model_call_ids`): the model-authored turns it kept. */
  kept_call_ids: readonly string[];
  /** The scored response's id. */
  response_id?: string;
  /** trailingTurnKey() of the scored transcript: the final call's answer. */
  final_turn_key: string;
}

export interface EpisodeInput {
  outcome: EpisodeOutcome;
  calls: readonly CallEvidence[];
  /** Lines of this rollout in the call log that could not be read, each described. */
  unreadable?: readonly string[];
}

interface Node {
  call: CallEvidence;
  tokens: TokenBundle;
  cumulativeLength: number;
  parent?: Node;
  children: Node[];
  /** Why the call starts a chain of its own although the agent made it after another. */
  rootNote?: string;
  /** It starts a chain because the history policy compacted its input (not because its tokens were rewritten). */
  compactedRoot?: boolean;
}

class Masked {
  constructor(
    readonly reason: MaskReason,
    readonly detail: string,
  ) {}
}

/** prompt + generation of `a` is a prefix of `prompt`: a's whole context, answer included, was continued. */
function continues(a: Node, prompt: readonly number[]): boolean {
  const p = a.tokens.prompt_token_ids;
  const g = a.tokens.generation_token_ids;
  if (a.cumulativeLength > prompt.length) return false;
  for (let i = 0; i < p.length; i++) if (p[i] !== prompt[i]) return false;
  for (let i = 0; i < g.length; i++) if (g[i] !== prompt[p.length + i]) return false;
  return true;
}

function sameTokens(a: readonly number[], b: readonly number[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function sameSequence(a: Node, b: Node): boolean {
  return sameTokens(a.tokens.prompt_token_ids, b.tokens.prompt_token_ids) && sameTokens(a.tokens.generation_token_ids, b.tokens.generation_token_ids);
}

const byTime = (a: Node, b: Node) => (a.call.started_at ?? 0) - (b.call.started_at ?? 0) || (a.call.call_id < b.call.call_id ? -1 : a.call.call_id > b.call.call_id ? 1 : 0);

/** The calls of one id: identical copies are one call (a line written twice); differing ones are corrupt. */
function distinctCalls(calls: readonly CallEvidence[]): CallEvidence[] {
  const seen = new Map<string, CallEvidence>();
  for (const call of calls) {
    const had = seen.get(call.call_id);
    if (!had) seen.set(call.call_id, call);
    else if (JSON.stringify(had) !== JSON.stringify(call)) throw new Masked('unreadable_call_record', `the call log holds two different lines for call ${call.call_id}`);
  }
  return [...seen.values()];
}

function compactionText(c: CompactionSummary): string {
  const parts = [
    c.turns_dropped ? `${c.turns_dropped} of ${c.turns} turns dropped` : '',
    c.images_omitted ? `${c.images_omitted} images omitted` : '',
    c.reasoning_omitted ? `${c.reasoning_omitted} reasoning items omitted` : '',
  ];
  return parts.filter(Boolean).join(', ');
}

/**
 * Links each call to the call it continues. A call of the agent's turns claims the previous turn's call as
 * its parent, and the claim holds only if that call's prompt + generation is a token prefix of this prompt;
 * if it is not, the context was compacted or rewritten and the call starts a new chain. Other calls
 * (retries, side calls, earlier attempts) continue the call whose tokens are the longest prefix of their
 * prompt, if any.
 */
function link(nodes: Node[], kept: readonly string[]): Node[] {
  const byId = new Map(nodes.map((n) => [n.call.call_id, n]));
  const keptAt = new Map(kept.map((id, i) => [id, i]));
  const ordered = [...nodes].sort((a, b) => a.tokens.prompt_token_ids.length - b.tokens.prompt_token_ids.length || byTime(a, b));
  const roots: Node[] = [];
  const done: Node[] = [];
  for (const node of ordered) {
    const at = keptAt.get(node.call.call_id);
    let parent: Node | undefined;
    if (at !== undefined) {
      // The agent's first turn starts the episode; a later one continues the turn before it, if its tokens say so.
      const claimed = at > 0 ? byId.get(kept[at - 1]!) : undefined;
      if (claimed && continues(claimed, node.tokens.prompt_token_ids)) parent = claimed;
      else if (claimed && node.call.compaction) {
        node.compactedRoot = true;
        node.rootNote = `the history policy compacted its input (${compactionText(node.call.compaction)}), so it does not extend call ${claimed.call.call_id}, the turn before it`;
      } else if (claimed) node.rootNote = `its prompt does not extend call ${claimed.call.call_id}, the turn before it`;
    } else {
      let best: Node[] = [];
      for (const candidate of done) {
        if (!continues(candidate, node.tokens.prompt_token_ids)) continue;
        if (!best.length || candidate.cumulativeLength > best[0]!.cumulativeLength) best = [candidate];
        else if (candidate.cumulativeLength === best[0]!.cumulativeLength) best.push(candidate);
      }
      // Candidates of one length are identical sequences (both prefixes of one prompt): interchangeable
      // as context, so the agent's own turn, else the earliest, is taken.
      parent = best.find((n) => keptAt.has(n.call.call_id)) ?? best.sort(byTime)[0];
    }
    if (parent) {
      node.parent = parent;
      parent.children.push(node);
    } else roots.push(node);
    done.push(node);
  }
  return roots;
}

/** Calls that name one generation: several with the same tokens are one candidate (the agent's turn, else the earliest). */
function oneCandidate(found: Node[], kept: ReadonlySet<string>): Node | undefined {
  if (!found.length) return undefined;
  if (found.some((n) => !sameSequence(n, found[0]!))) return undefined;
  return found.find((n) => kept.has(n.call.call_id)) ?? [...found].sort(byTime)[0];
}

/**
 * The call whose answer was scored. Up to three witnesses name it: the agent's last turn, the scored
 * response's id, and the scored transcript's last model-authored turn. Each abstains rather than guess;
 * those that speak must agree (or name calls with the same tokens). With no witness, the calls must form
 * a single chain whose end is the final call.
 */
function finalCall(nodes: Node[], roots: Node[], outcome: EpisodeOutcome): Node {
  const kept = new Set(outcome.kept_call_ids);
  const witnesses: [string, Node][] = [];
  const last = outcome.kept_call_ids.at(-1);
  const lastNode = last === undefined ? undefined : nodes.find((n) => n.call.call_id === last);
  if (lastNode) witnesses.push(['last turn', lastNode]);
  const byResponseId =
    outcome.response_id && outcome.response_id !== 'resp_none'
      ? oneCandidate(
          nodes.filter((n) => n.call.response_id === outcome.response_id),
          kept,
        )
      : undefined;
  if (byResponseId) witnesses.push(['response id', byResponseId]);
  const byContent = outcome.final_turn_key
    ? oneCandidate(
        nodes.filter((n) => n.call.answer_key === outcome.final_turn_key),
        kept,
      )
    : undefined;
  if (byContent) witnesses.push(['transcript', byContent]);
  if (witnesses.length) {
    const [, named] = witnesses[0]!;
    if (witnesses.every(([, n]) => n === named || sameSequence(n, named))) return named;
    throw new Masked('final_call_ambiguous', `witnesses disagree on the final call: ${witnesses.map(([w, n]) => `${w} names ${n.call.call_id}`).join(', ')}`);
  }
  // A retry whose sibling of the same prompt was continued is no end: the harness kept the other answer.
  const siblings = (n: Node) => n.parent?.children ?? roots;
  const superseded = (n: Node) => !n.children.length && siblings(n).some((s) => s !== n && s.children.length > 0 && sameTokens(s.tokens.prompt_token_ids, n.tokens.prompt_token_ids));
  const ends = nodes.filter((n) => !n.children.length && !superseded(n));
  if (roots.filter((n) => !superseded(n)).length === 1 && ends.length === 1) return ends[0]!;
  throw new Masked(
    'final_call_ambiguous',
    `nothing names the final call and ${ends.length} calls end a chain (${ends
      .sort(byTime)
      .map((n) => n.call.call_id)
      .join(', ')})`,
  );
}

function rootOf(node: Node): Node {
  let n = node;
  while (n.parent) n = n.parent;
  return n;
}

function isAncestor(ancestor: Node, node: Node): boolean {
  for (let n = node.parent; n; n = n.parent) if (n === ancestor) return true;
  return false;
}

/** Why a call that is not on the final path is left out. */
function offPathReason(node: Node, path: Node[], final: Node): { reason: DropReason; detail?: string } {
  if (isAncestor(final, node)) return { reason: 'after_final_call', detail: `extends the final call ${final.call.call_id}` };
  const twin = path.find((p) => sameTokens(p.tokens.prompt_token_ids, node.tokens.prompt_token_ids));
  if (twin) return { reason: 'retry', detail: `same prompt as call ${twin.call.call_id}, which the final path keeps` };
  if (rootOf(node) === path[0]) return { reason: 'branch', detail: node.parent ? `continues call ${node.parent.call.call_id}` : undefined };
  const start = path[0]!;
  if (start.compactedRoot) return { reason: 'before_compaction', detail: `before call ${start.call.call_id} started a new chain: ${start.rootNote}` };
  return { reason: 'other_chain', detail: start.rootNote ? `before call ${start.call.call_id} started a new chain: ${start.rootNote}` : 'not connected to the final call' };
}

function assemble(path: Node[]): Pick<TrainingRecord, 'prompt_token_ids' | 'response_token_ids' | 'response_mask' | 'response_log_probs' | 'calls'> {
  const ids: number[] = [];
  const mask: (0 | 1)[] = [];
  const logProbs: number[] = [];
  const calls: UsedCall[] = [];
  let seen = path[0]!.tokens.prompt_token_ids.length;
  for (const node of path) {
    const { prompt_token_ids: prompt, generation_token_ids: generation, generation_log_probs: lp } = node.tokens;
    // Tokens between calls (tool results, the next turn's headers) were not sampled: mask 0, log-prob 0,
    // as NeMo RL fills the log-probs of non-assistant messages.
    for (let i = seen; i < prompt.length; i++) (ids.push(prompt[i]!), mask.push(0), logProbs.push(0));
    const start = ids.length;
    for (let i = 0; i < generation.length; i++) (ids.push(generation[i]!), mask.push(1), logProbs.push(lp[i]!));
    calls.push({
      call_id: node.call.call_id,
      step: node.call.step,
      attempt: node.call.attempt,
      interstitial_tokens: prompt.length - seen,
      generation_start: start,
      generation_tokens: generation.length,
    });
    seen = node.cumulativeLength;
  }
  return { prompt_token_ids: [...path[0]!.tokens.prompt_token_ids], response_token_ids: ids, response_mask: mask, response_log_probs: logProbs, calls };
}

export function rebuildEpisode(input: EpisodeInput): TrainingRecord {
  const { outcome } = input;
  const base = { _ng_rollout_id: outcome.rollout_id, _ng_task_index: outcome.task_index, _ng_rollout_index: outcome.rollout_index, reward: outcome.reward };
  const dropped = new Map<string, DroppedCall>();
  const drop = (call: CallEvidence, reason: DropReason, detail?: string) => dropped.set(call.call_id, { call_id: call.call_id, reason, ...(detail ? { detail } : {}) });
  let calls: CallEvidence[] = [...input.calls];
  let chains = 0;
  let compacted: CompactedCall[] = [];
  try {
    if (input.unreadable?.length) throw new Masked('unreadable_call_record', input.unreadable.join('; '));
    calls = distinctCalls(input.calls);
    const logged = new Set(calls.map((c) => c.call_id));
    const missing = outcome.kept_call_ids.filter((id) => !logged.has(id));
    if (missing.length) throw new Masked('call_log_incomplete', `the record names model calls the call log does not hold: ${missing.join(', ')}`);
    const nodes: Node[] = [];
    for (const call of calls) {
      if (call.role === 'judge') drop(call, 'judge_call');
      else if (!call.answered) drop(call, 'failed_call');
      else if (call.tokens.kind === 'none') throw new Masked('missing_token_ids', `call ${call.call_id} was answered without token ids`);
      else if (call.tokens.kind === 'bad') throw new Masked('bad_token_metadata', `call ${call.call_id}: ${call.tokens.detail}`);
      else if (!call.tokens.bundle.generation_token_ids.length) drop(call, 'empty_generation');
      else nodes.push({ call, tokens: call.tokens.bundle, cumulativeLength: call.tokens.bundle.prompt_token_ids.length + call.tokens.bundle.generation_token_ids.length, children: [] });
    }
    if (!nodes.length) throw new Masked('no_calls', calls.length ? 'no call of the rollout generated tokens' : 'the call log holds no call of this rollout');
    // Only the agent's turns that generated tokens can claim a parent; a dropped turn leaves its successor to the prefix match.
    const usable = new Set(nodes.map((n) => n.call.call_id));
    const roots = link(
      nodes,
      outcome.kept_call_ids.filter((id) => usable.has(id)),
    );
    chains = roots.length;
    compacted = nodes
      .filter((n) => n.call.compaction)
      .sort(byTime)
      .map((n) => ({ call_id: n.call.call_id, step: n.call.step, new_chain: !n.parent }));
    const final = finalCall(nodes, roots, outcome);
    const path: Node[] = [];
    for (let n: Node | undefined = final; n; n = n.parent) path.unshift(n);
    const onPath = new Set(path);
    for (const node of nodes) {
      if (onPath.has(node)) continue;
      const why = offPathReason(node, path, final);
      drop(node.call, why.reason, why.detail);
    }
    return { ...base, ...assemble(path), masked: false, mask_reason: null, mask_detail: null, dropped_calls: ordered(calls, dropped), chains, compacted_calls: compacted };
  } catch (e) {
    if (!(e instanceof Masked)) throw e;
    for (const call of calls) if (!dropped.has(call.call_id)) drop(call, 'unresolved');
    return {
      ...base,
      prompt_token_ids: [],
      response_token_ids: [],
      response_mask: [],
      response_log_probs: [],
      masked: true,
      mask_reason: e.reason,
      mask_detail: e.detail,
      calls: [],
      dropped_calls: ordered(calls, dropped),
      chains,
      compacted_calls: compacted,
    };
  }
}

/** Dropped calls in the order the rollout made them. */
function ordered(calls: readonly CallEvidence[], dropped: Map<string, DroppedCall>): DroppedCall[] {
  return [...calls]
    .sort((a, b) => (a.started_at ?? 0) - (b.started_at ?? 0) || a.step - b.step || a.attempt - b.attempt)
    .flatMap((c) => {
      const d = dropped.get(c.call_id);
      dropped.delete(c.call_id);
      return d ? [d] : [];
    });
}
