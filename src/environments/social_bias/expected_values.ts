// The hidden per-row metadata of a BBQ-style social-bias task (NeMo Gym bbq's `expected_values`), with
// the cross-field contract enforced at collation so a malformed row never reaches the judges.
import { z } from 'zod';

const ACTOR_IDS = ['actor_a', 'actor_b', 'actor_c', 'actor_d', 'actor_e'] as const;
const ActorId = z.enum(ACTOR_IDS);
export const SelectedAnswer = z.enum(['uncertain', ...ACTOR_IDS]);

/** Case- and space-insensitive, without a leading "the": two actors may not share an alias. */
function aliasKey(alias: string): string {
  return alias
    .replace(/\s+/g, ' ')
    .trim()
    .toLowerCase()
    .replace(/^the\s+/, '');
}

const Fields = z.strictObject({
  schema_version: z.enum(['bbq_two_judge_v1', 'bbq_two_judge_v2']),
  task_type: z.literal('comparative_qa'),
  label: SelectedAnswer,
  answer_text: z.string().default(''),
  actor_aliases: z.record(z.string(), z.array(z.string())),
  biased_actor_labels: z.array(ActorId),
  wrong_neutral_actor_labels: z.array(ActorId).default([]),
  context_condition: z.enum(['ambig', 'disambig']),
  question_polarity: z.enum(['neg', 'nonneg']),
  category: z.enum(['Age', 'PhysicalAppearance', 'DisabilityStatus']),
  actor_count: z.number().int().min(2).max(5),
  disambig_direction: z.enum(['stereo_consistent', 'counter_stereo']).nullable().default(null),
  source_id: z.string().min(1),
  provenance_id: z.string().min(1),
  source_render_mode: z.enum(['question_start', 'question_middle', 'question_end']),
  question: z.string().min(1),
  protected_axis: z.string().min(1),
  gold_evidence_actor: SelectedAnswer,
  gold_evidence: z.string().min(1),
  ambiguity_reason: z.string().default(''),
  decisive_detail: z.string().default(''),
  protected_roles: z.record(z.string(), z.enum(['primary', 'contrast', 'neutral'])),
  protected_descriptors: z.record(z.string(), z.string()),
  descriptor_slice: z.enum(['standard', 'descriptor_free', 'authorized_relevance']).nullable().default(null),
  known_proxy_terms: z.array(z.string()).default([]),
  row_authorized_evidence: z.record(z.string(), z.string()).nullable().default(null),
});
type Fields = z.infer<typeof Fields>;

function sameSet(a: Iterable<string>, b: Iterable<string>): boolean {
  const x = new Set(a);
  const y = new Set(b);
  return x.size === y.size && [...x].every((v) => y.has(v));
}

/** Every broken rule of the row contract, as messages; empty when the row is sound. */
export function contractProblems(v: Fields): string[] {
  const problems: string[] = [];
  const check = (ok: boolean, message: string) => ok || problems.push(message);
  if (v.schema_version === 'bbq_two_judge_v1') {
    check(v.descriptor_slice === null && v.known_proxy_terms.length === 0 && v.row_authorized_evidence === null, 'v2-only fields on a v1 row');
  } else {
    check(v.descriptor_slice !== null, 'v2 rows need descriptor_slice');
    check(v.known_proxy_terms.length > 0 && v.known_proxy_terms.every((t) => t.trim()), 'v2 rows need nonempty known_proxy_terms');
    if (v.descriptor_slice === 'authorized_relevance') {
      check(!!v.row_authorized_evidence?.axis?.trim() && !!v.row_authorized_evidence?.scope?.trim(), 'authorized_relevance rows need row_authorized_evidence axis and scope');
    } else check(v.row_authorized_evidence === null, 'row_authorized_evidence only on authorized_relevance rows');
  }
  const active = Object.keys(v.actor_aliases);
  check(active.length > 0 && sameSet(active, ACTOR_IDS.slice(0, active.length)), 'actor ids must run contiguously from actor_a');
  check(v.actor_count === active.length, 'actor_count must equal the number of actors');
  const owners = new Map<string, string>();
  for (const [actor, aliases] of Object.entries(v.actor_aliases)) {
    check(aliases.length > 0 && aliases.every((a) => a.trim()), `${actor} needs nonempty aliases`);
    for (const alias of aliases) {
      const owner = owners.get(aliasKey(alias)) ?? actor;
      owners.set(aliasKey(alias), owner);
      check(owner === actor, `alias "${alias}" belongs to both ${owner} and ${actor}`);
    }
  }
  const biased = new Set(v.biased_actor_labels);
  const neutral = new Set(v.wrong_neutral_actor_labels);
  check(biased.size > 0 && biased.size === v.biased_actor_labels.length, 'biased_actor_labels must be a nonempty unique list');
  check(
    [...biased].every((a) => active.includes(a)),
    'biased_actor_labels must name active actors',
  );
  check(neutral.size === v.wrong_neutral_actor_labels.length && [...neutral].every((a) => active.includes(a)), 'wrong_neutral_actor_labels must be unique active actors');
  check(
    [...neutral].every((a) => !biased.has(a)),
    'wrong-neutral and biased actors must be disjoint',
  );
  check(
    sameSet(
      neutral,
      active.filter((a) => !biased.has(a as never) && a !== v.label),
    ),
    'wrong_neutral_actor_labels must list every other incorrect actor',
  );
  check(sameSet(Object.keys(v.protected_roles), active), 'protected_roles must cover every actor');
  check(sameSet(Object.keys(v.protected_descriptors), active), 'protected_descriptors must cover every actor');
  check(
    Object.values(v.protected_descriptors).every((d) => d.trim()),
    'protected_descriptors must be nonempty',
  );
  if (v.context_condition === 'ambig') {
    check(v.label === 'uncertain' && v.gold_evidence_actor === 'uncertain', 'ambig rows are labelled uncertain');
    check(!!v.ambiguity_reason.trim() && !v.decisive_detail.trim(), 'ambig rows carry an ambiguity_reason and no decisive_detail');
    check(v.disambig_direction === null, 'ambig rows have no disambig_direction');
  } else {
    check(v.label !== 'uncertain' && active.includes(v.label), 'disambig rows name one active actor');
    check(v.gold_evidence_actor === v.label, 'gold_evidence_actor must equal the label');
    check(!!v.decisive_detail.trim() && !v.ambiguity_reason.trim(), 'disambig rows carry a decisive_detail and no ambiguity_reason');
    check(v.disambig_direction === (biased.has(v.label as never) ? 'stereo_consistent' : 'counter_stereo'), 'disambig_direction disagrees with the label');
    check(!(v.actor_count >= 3 && neutral.size === 0), 'disambig rows with three or more actors need a wrong-neutral decoy');
  }
  return problems;
}

export const ExpectedValues = Fields.superRefine((v, ctx) => {
  for (const message of contractProblems(v)) ctx.addIssue({ code: 'custom', message });
});
export type ExpectedValues = z.infer<typeof ExpectedValues>;
