// Turns zod's issues for one task row into lines a user can act on: the field path with item indices
// (`responses_create_params.input[0].role`), what was expected and what the row holds.
import type { z } from 'zod';

type Issue = z.core.$ZodIssue;
type Path = readonly PropertyKey[];

/** `a.b[0].c`: items by index, fields by name. */
export function formatPath(path: Path): string {
  if (!path.length) return '(row)';
  let out = '';
  for (const key of path) out += typeof key === 'number' ? `[${key}]` : `${out ? '.' : ''}${String(key)}`;
  return out;
}

function valueAt(row: unknown, path: Path): unknown {
  let value = row;
  for (const key of path) value = value !== null && typeof value === 'object' ? (value as Record<PropertyKey, unknown>)[key] : undefined;
  return value;
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

function shown(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}…` : text;
}

/** A union branch that fails on the value's own type (a string where an array is wanted) is not the one meant. */
function wrongTypeAtRoot(branch: readonly Issue[]): boolean {
  return branch.some((i) => i.path.length === 0 && i.code === 'invalid_type');
}

/**
 * How far a union branch is from the value: a branch whose literal tag (`type: "function_call"`)
 * differs is another kind of item, so each such mismatch outweighs any number of missing fields.
 */
function distance(branch: readonly Issue[]): number {
  if (wrongTypeAtRoot(branch)) return Number.POSITIVE_INFINITY;
  let d = 0;
  for (const issue of branch) d += issue.code === 'invalid_value' && issue.values.length === 1 ? 1000 : 1;
  return d;
}

function describeUnion(issue: Extract<Issue, { code: 'invalid_union' }>, path: Path, row: unknown): string[] {
  const value = valueAt(row, path);
  const branches = issue.errors;
  if (!branches.length) return [`${formatPath(path)}: ${issue.message}`];
  let best = 0;
  for (let b = 1; b < branches.length; b++) if (distance(branches[b]!) < distance(branches[best]!)) best = b;
  if (distance(branches[best]!) === Number.POSITIVE_INFINITY) {
    const expected = branches.flatMap((br) => br.flatMap((i) => (i.path.length === 0 && i.code === 'invalid_type' ? [i.expected] : [])));
    return [`${formatPath(path)}: expected ${[...new Set(expected)].join(' or ')}, got ${value === undefined ? 'nothing (the field is missing)' : typeName(value)}`];
  }
  return branches[best]!.flatMap((inner) => describeAt(inner, [...path, ...inner.path], row));
}

function describeAt(issue: Issue, path: Path, row: unknown): string[] {
  const where = formatPath(path);
  if (issue.code === 'invalid_union') return describeUnion(issue, path, row);
  const value = valueAt(row, path);
  if (issue.code === 'invalid_type') {
    return [value === undefined ? `${where}: missing (expected ${issue.expected})` : `${where}: expected ${issue.expected}, got ${typeName(value)}`];
  }
  if (issue.code === 'invalid_value') return [`${where}: ${issue.message}, got ${shown(value)}`];
  return [`${where}: ${issue.message}`];
}

/** One line per problem in `row`, with zod's union failures replaced by the closest branch's own issues. */
export function describeIssues(issues: readonly Issue[], row: unknown): string[] {
  return issues.flatMap((issue) => describeAt(issue, issue.path, row));
}
