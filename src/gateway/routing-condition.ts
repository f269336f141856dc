// The routing condition a run was served under, in its folder: Switchyard's (route, mode, deployment hash
// and redacted text, version, session headers; NeMo Gym's switchyard-condition.json keys) and the proxy's
// /v1/stats at shutdown, best-effort; Gymflow's own router's strategy and targets.
import path from 'node:path';
import { z } from 'zod';
import { writeFileAtomic } from '../store/jsonl';

export const SWITCHYARD_CONDITION_FILE = 'switchyard-condition.json';
export const SWITCHYARD_STATS_FILE = 'switchyard-stats.json';
export const ROUTING_CONDITION_FILE = 'routing-condition.json';

export const SwitchyardCondition = z.object({
  route: z.string(),
  mode: z.enum(['hosted', 'attached']),
  proxy_root_url: z.string(),
  /** The hosted proxy's version; null when attached (Gymflow cannot see what a proxy it did not start runs). */
  nemo_switchyard_version: z.string().nullable(),
  deployment_path: z.string().nullable(),
  deployment_sha256: z.string().nullable(),
  deployment_toml: z.string().nullable(),
  session_id_headers: z.array(z.string()),
  forward_session_id: z.boolean(),
  written_at: z.string(),
});
export type SwitchyardCondition = z.infer<typeof SwitchyardCondition>;

export const GymflowCondition = z.object({
  by: z.literal('gymflow'),
  route: z.string(),
  strategy: z.record(z.string(), z.unknown()),
  /** Each target's backend and upstream model (its endpoint and key variable left out). */
  targets: z.record(z.string(), z.object({ backend: z.string(), model: z.string() })),
  written_at: z.string(),
});
export type GymflowCondition = z.infer<typeof GymflowCondition>;

export async function writeCondition(runDir: string, file: string, condition: object): Promise<void> {
  await writeFileAtomic(path.join(runDir, file), `${JSON.stringify(condition, null, 2)}\n`);
}
