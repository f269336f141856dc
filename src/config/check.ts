// What a NeMo Gym configuration may hold at its top: the reserved settings, env.yaml's policy and exporter
// keys, and server instances (`name: {<server type>: {<implementation>: {...}}}`). Anything else is reported
// with the file that set it, since a misspelt key would otherwise be silently ignored.
import { isMap, sourceOf, type ConfigMap, type Sources } from './tree';
import type { ConfigProblem } from './interpolate';

/** NeMo Gym 0.7.0's reserved top-level keys (global_config.py), and the ones env.yaml and the exporters add. */
const RESERVED = new Set([
  'config_paths',
  'entrypoint',
  'default_host',
  'head_server',
  'disallowed_ports',
  'head_server_deps',
  'python_version',
  'pip_install_verbose',
  'use_absolute_ip',
  'uv_pip_set_python',
  'skip_venv_if_present',
  'hf_token',
  'ray_head_node_address',
  'port_range_low',
  'port_range_high',
  'dry_run',
  'uvicorn_timeout_worker_healthcheck',
  'server_spinup_timeout_seconds',
  'model_endpoint_readiness_timeout_seconds',
  'allow_openai_version_skew',
  'uv_cache_dir',
  'uv_lock_timeout_seconds',
  'uv_venv_dir',
  'results_dir',
  'cache_dir',
  '_inherit_from',
  '_copy',
  '_delete_key',
  'nemo_gym_log_dir',
  'verbose',
  'json',
  'query',
  'observability_enabled',
  'model_call_capture_dir',
  'token_id_capture',
  'component_name',
  'skip_verification',
  'skip_verification_reward',
  'telemetry',
  'allow_unsupported_pairing',
  'environment_server_name',
  'environment_server_routes',
  'environment_routing_mode',
  'error_on_agent_without_environment_server',
  'policy_base_url',
  'policy_api_key',
  'policy_model_name',
  'wandb_project',
  'wandb_name',
  'wandb_entity',
  'wandb_api_key',
  'mlflow_tracking_uri',
  'mlflow_experiment_name',
  'mlflow_run_name',
  'mlflow_tracking_token',
  'upload_rollouts',
  'upload_rollouts_to_wandb',
  // Keys the NeMo Gym CLI sets from its flags (`gym eval run -i/-o/--limit/…`).
  'agent_name',
  'input_jsonl_fpath',
  'output_jsonl_fpath',
  'limit',
  'num_repeats',
  'num_samples_in_parallel',
  'responses_create_params',
  'split',
  'agent_map',
  'agent_type',
  'allow_unsupported_pairing',
  'prompt_config',
  'resume',
  'disable_aggregation',
  'route_failures_to_sidecar',
  'count_as_zero',
]);

export const SERVER_TYPES = ['resources_servers', 'responses_api_agents', 'responses_api_models', 'environment_servers'] as const;
export type ServerType = (typeof SERVER_TYPES)[number];

export interface ServerInstance {
  readonly name: string;
  readonly type: ServerType;
  readonly implementation: string;
  readonly config: ConfigMap;
}

/** The server instances of a resolved configuration, and a problem for every key that is neither one nor reserved. */
export function serverInstances(config: ConfigMap, sources: Sources): { servers: ServerInstance[]; problems: ConfigProblem[] } {
  const servers: ServerInstance[] = [];
  const problems: ConfigProblem[] = [];
  const report = (path: string[], message: string) => problems.push({ path: path.join('.'), source: sourceOf(sources, path), message });
  for (const [name, value] of Object.entries(config)) {
    if (RESERVED.has(name)) continue;
    if (!isMap(value)) {
      report([name], `unknown setting "${name}" (not one of NeMo Gym's top-level settings, and not a server instance)`);
      continue;
    }
    const types = Object.keys(value);
    const type = types[0] as ServerType;
    if (types.length !== 1 || !SERVER_TYPES.includes(type)) {
      report([name], `"${name}" is not a server instance: it must hold exactly one of ${SERVER_TYPES.join(', ')}, found ${types.join(', ') || 'nothing'}`);
      continue;
    }
    const impls = value[type];
    if (!isMap(impls) || Object.keys(impls).length !== 1 || !isMap(Object.values(impls)[0])) {
      report([name, type], `must hold exactly one implementation with its settings, e.g. ${type}: {<implementation>: {entrypoint: app.py}}`);
      continue;
    }
    const [implementation, settings] = Object.entries(impls)[0] as [string, ConfigMap];
    servers.push({ name, type, implementation, config: settings });
  }
  return { servers, problems };
}

/** Every `{type, name}` reference from one server to another (an agent's resources and model servers, …) must name an instance of that type. */
export function referenceProblems(servers: readonly ServerInstance[], sources: Sources): ConfigProblem[] {
  const byName = new Map(servers.map((s) => [s.name, s]));
  const problems: ConfigProblem[] = [];
  for (const server of servers) {
    for (const [key, ref] of Object.entries(server.config)) {
      if (!isMap(ref) || typeof ref.type !== 'string' || typeof ref.name !== 'string' || !SERVER_TYPES.includes(ref.type as ServerType)) continue;
      const target = byName.get(ref.name);
      if (target?.type === ref.type) continue;
      const path = [server.name, server.type, server.implementation, key];
      const known = servers.filter((s) => s.type === ref.type).map((s) => s.name);
      problems.push({
        path: path.join('.'),
        source: sourceOf(sources, path),
        message: `refers to ${ref.type} "${ref.name}", which the configuration does not define${target ? ` (it is a ${target.type})` : ''}; ${known.length ? `defined: ${known.join(', ')}` : `no ${ref.type} is defined`}`,
      });
    }
  }
  return problems;
}
