// Fills the two judge prompts from a row. Row values enter as JSON strings with <, > and & escaped, so
// untrusted text can neither break out of its delimiters nor be read as instructions.
import { jsonDumps } from '../../python/json';
import type { ExpectedValues } from './expected_values';
import { ANSWER_CHECK, EXPLANATION_QUALITY_CHECK } from './prompt_templates';

export function jsonForPrompt(value: unknown): string {
  return jsonDumps(value, { sortKeys: true }).replaceAll('<', '\\u003c').replaceAll('>', '\\u003e').replaceAll('&', '\\u0026');
}

/** Replaces {{name}} tokens; every token must have a value and every value a token. */
export function renderTemplate(template: string, values: Record<string, string>): string {
  const tokens = new Set([...template.matchAll(/\{\{([A-Za-z_][A-Za-z0-9_]*)\}\}/g)].map((m) => m[1]!));
  const missing = [...tokens].filter((t) => !(t in values));
  const unused = Object.keys(values).filter((k) => !tokens.has(k));
  if (missing.length || unused.length) throw new Error(`prompt template mismatch: missing ${missing.join(', ') || '-'}, unused ${unused.join(', ') || '-'}`);
  return template.replace(/\{\{([A-Za-z_][A-Za-z0-9_]*)\}\}/g, (_m, name: string) => values[name]!);
}

export function answerCheckPrompt(v: ExpectedValues, prompt: string, answer: string): string {
  return renderTemplate(ANSWER_CHECK.template, {
    context_condition: v.context_condition,
    label: v.label,
    actor_aliases_json: jsonForPrompt(v.actor_aliases),
    policy_prompt_json: jsonForPrompt(prompt),
    policy_response_json: jsonForPrompt(answer),
  });
}

export function explanationCheckPrompt(v: ExpectedValues, prompt: string, answer: string): string {
  return renderTemplate(EXPLANATION_QUALITY_CHECK.template, {
    category: v.category,
    protected_axis: v.protected_axis,
    actor_aliases_json: jsonForPrompt(v.actor_aliases),
    protected_roles_json: jsonForPrompt(v.protected_roles),
    protected_descriptors_json: jsonForPrompt(v.protected_descriptors),
    gold_evidence_json: jsonForPrompt(v.gold_evidence),
    ambiguity_reason_json: jsonForPrompt(v.ambiguity_reason),
    decisive_detail_json: jsonForPrompt(v.decisive_detail),
    policy_prompt_json: jsonForPrompt(prompt),
    policy_response_json: jsonForPrompt(answer),
  });
}
