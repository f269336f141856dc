// The datasets a NeMo Gym configuration declares (`datasets:` on an agent or resources-server instance),
// each with the Gymflow environment that validates its rows and the instance name rows are stamped with.
import { z } from 'zod';
import { serverInstances, type ServerInstance } from '../config/check';
import type { LoadedConfig } from '../config/load';
import type { ConfigProblem } from '../config/interpolate';
import { sourceOf } from '../config/tree';
import { environmentNames } from '../environments/registry';

export const DATASET_TYPES = ['train', 'validation', 'example', 'benchmark'] as const;
export type DatasetType = (typeof DATASET_TYPES)[number];

/** NeMo Gym's DatasetConfig; its download sources (`source`, `gitlab_identifier`, …) are kept but never used here. */
export const DatasetDeclaration = z
  .looseObject({
    name: z.string().min(1),
    type: z.enum(DATASET_TYPES),
    jsonl_fpath: z.string().min(1),
    num_repeats: z.number().int().min(1).optional(),
    license: z.string().min(1).optional(),
    /** A benchmark dataset may pin the agent instance that runs it. */
    agent: z.string().min(1).optional(),
  })
  .refine((d) => d.license !== undefined || (d.type !== 'train' && d.type !== 'validation'), { message: 'a train or validation dataset needs a license', path: ['license'] });
export type DatasetDeclaration = z.infer<typeof DatasetDeclaration>;

export interface DeclaredDataset extends DatasetDeclaration {
  /** The instance that declared it: rows are stamped with it as `task_source`. */
  readonly instance: string;
  readonly instanceType: ServerInstance['type'];
  /** The Gymflow environment (NeMo Gym's resources server implementation) its rows are validated against. */
  readonly env: string;
  /** The file that declared it, for relative paths and errors. */
  readonly declaredIn: string | undefined;
}

export const MODES = { train_preparation: ['train', 'validation'], example_validation: ['example'], benchmark: ['benchmark'] } as const;
export type CollateMode = keyof typeof MODES;

/** Every dataset declared in the configuration, and a problem for each declaration that cannot be used. */
export function declaredDatasets(loaded: LoadedConfig): { datasets: DeclaredDataset[]; problems: ConfigProblem[] } {
  const { servers, problems } = serverInstances(loaded.config, loaded.sources);
  const byName = new Map(servers.map((s) => [s.name, s]));
  const datasets: DeclaredDataset[] = [];
  for (const server of servers) {
    const raw = server.config.datasets;
    if (raw === undefined || raw === null) continue;
    const at = [server.name, server.type, server.implementation, 'datasets'];
    const report = (path: (string | number)[], message: string) => problems.push({ path: path.join('.'), source: sourceOf(loaded.sources, path.map(String)), message });
    if (server.type === 'responses_api_models' || server.type === 'environment_servers') {
      report(at, `datasets are declared on agents or resources servers, not on ${server.type}`);
      continue;
    }
    if (!Array.isArray(raw)) {
      report(at, 'must be a list of datasets');
      continue;
    }
    const env = environmentOf(server, byName);
    if (typeof env !== 'string') {
      report(at, env.problem);
      continue;
    }
    raw.forEach((item, i) => {
      const parsed = DatasetDeclaration.safeParse(item);
      if (!parsed.success) {
        for (const issue of parsed.error.issues) report([...at, i, ...issue.path.map(String)], issue.message);
        return;
      }
      datasets.push({ ...parsed.data, instance: server.name, instanceType: server.type, env, declaredIn: sourceOf(loaded.sources, [...at, String(i)]) });
    });
  }
  return { datasets, problems };
}

function environmentOf(server: ServerInstance, byName: ReadonlyMap<string, ServerInstance>): string | { problem: string } {
  let resources = server;
  if (server.type === 'responses_api_agents') {
    const ref = server.config.resources_server as { name?: unknown } | undefined;
    // NeMo Gym's anyterminal_agent has no resources server: its rows are Terminal-Bench tasks (routing/agent-types.ts).
    if (server.implementation === 'anyterminal_agent' && ref === undefined) return 'terminal_bench_2_1';
    const target = typeof ref?.name === 'string' ? byName.get(ref.name) : undefined;
    if (!target || target.type !== 'resources_servers') return { problem: `agent "${server.name}" declares datasets but its resources_server does not name a resources server of this configuration` };
    resources = target;
  }
  if (!environmentNames().includes(resources.implementation)) {
    return { problem: `resources server "${resources.name}" is "${resources.implementation}", which is not a Gymflow environment (known: ${environmentNames().join(', ')}); run it with --env remote` };
  }
  return resources.implementation;
}
