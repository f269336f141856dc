// The `routed` backend: Gymflow's own router over several target models, for users without the Switchyard
// proxy. A rollout's first call picks its target by the strategy and its later calls stay there; each call
// reports the target that served it, and each run folder it serves gets its routing condition.
import type { Logger } from 'pino';
import { withOverrides } from '../../sampling';
import type { RoutedModelSpec, TargetModelSpec } from '../../spec';
import type { Backend, CallContext, CallRouting } from '../backend';
import { ROUTING_CONDITION_FILE, writeCondition, type GymflowCondition } from '../../routing-condition';
import { chooseTarget } from './strategy';

/** Bounds the session → target table, as the replicas' is bounded; a forgotten session is placed again. */
const MAX_SESSIONS = 100_000;

const upstreamModel = (spec: TargetModelSpec): string => (spec.backend === 'mock' ? `mock:${spec.env}` : spec.model);

export function routedBackend(spec: RoutedModelSpec, make: (target: TargetModelSpec) => Backend, log: Logger): Backend {
  const names = Object.keys(spec.targets);
  const backends = new Map(names.map((name) => [name, make(spec.targets[name]!)]));
  const sessions = new Map<string, string>();
  let placed = 0;
  let unscoped = 0;

  function targetFor(ctx: CallContext): string {
    // A call with no rollout cannot be kept anywhere; it is placed on its own, as the next session would be.
    const session = ctx.session ?? `call-${unscoped++}`;
    const bound = sessions.get(session);
    if (bound !== undefined) return bound;
    const chosen = chooseTarget(spec.strategy, names, { session, ordinal: placed++, task: ctx.task ?? {} });
    sessions.set(session, chosen);
    if (sessions.size > MAX_SESSIONS) sessions.delete(sessions.keys().next().value!);
    return chosen;
  }

  const recorded = new Set<string>();
  async function recordCondition(runDir: string | undefined): Promise<void> {
    if (runDir === undefined || recorded.has(runDir)) return;
    recorded.add(runDir);
    const condition: GymflowCondition = {
      by: 'gymflow',
      route: spec.model,
      strategy: spec.strategy,
      targets: Object.fromEntries(names.map((name) => [name, { backend: spec.targets[name]!.backend, model: upstreamModel(spec.targets[name]!) }])),
      written_at: new Date().toISOString(),
    };
    await writeCondition(runDir, ROUTING_CONDITION_FILE, condition).catch((e: unknown) => log.warn({ err: e, run_dir: runDir }, 'routed: cannot write the routing condition'));
  }

  /** Runs the call on the rollout's target with that target's sampling overrides, and reports who served. */
  async function onTarget<T>(ctx: CallContext, call: (backend: Backend, target: TargetModelSpec, inner: CallContext) => Promise<T>): Promise<T> {
    await recordCondition(ctx.runDir);
    const name = targetFor(ctx);
    const target = spec.targets[name]!;
    let below: CallRouting | undefined;
    const result = await call(backends.get(name)!, target, { ...ctx, served: (r) => void (below = r) });
    ctx.served?.({ by: 'gymflow', route: spec.model, strategy: spec.strategy.type, target: name, model: below?.target ?? upstreamModel(target), ...(ctx.session ? { session: ctx.session } : {}) });
    return result;
  }

  const overridesOf = (target: TargetModelSpec) => (target.backend === 'mock' ? undefined : target.sampling_overrides);

  return {
    kind: 'routed',
    // Hosted tools go through only when every target takes them, whichever serves.
    hostedTools: [...backends.values()].every((b) => b.hostedTools),
    responses: (request, ctx) => onTarget(ctx, (b, t, inner) => b.responses(withOverrides(request, overridesOf(t), 'responses'), inner)),
    chatCompletions: (request, ctx) => onTarget(ctx, (b, t, inner) => b.chatCompletions(withOverrides(request, overridesOf(t), 'chat'), inner)),
    close: async () => void (await Promise.all([...backends.values()].map((b) => b.close?.()))),
  };
}
