// The `switchyard` backend: an OpenAI-compatible upstream (the openai backend's code) that is a Switchyard
// routing proxy, hosted from a TOML deployment or attached at base_url. Every request asks for the route,
// carries the rollout's session id, and reports the target that served it; each run folder it serves gets
// the routing condition, and the proxy's stats when the gateway closes.
import type { Logger } from 'pino';
import { request } from 'undici';
import { GatewayError } from '../../errors';
import type { SwitchyardModelSpec } from '../../spec';
import type { Backend, CallContext } from '../backend';
import { openaiBackend } from '../openai';
import { SWITCHYARD_CONDITION_FILE, SWITCHYARD_STATS_FILE, writeCondition, type SwitchyardCondition } from '../../routing-condition';
import { readDeployment } from './deployment';
import { hostProxy, type HostedProxy } from './host';

/** The stats snapshot runs while the gateway closes: a proxy that does not answer in this long is not waited for. */
const STATS_TIMEOUT_MS = 2_000;

interface Serving {
  rootUrl: string;
  version: string | null;
  backend: Backend;
  hosted?: HostedProxy;
}

export function switchyardBackend(spec: SwitchyardModelSpec, log: Logger): Backend {
  const hosted = spec.deployment !== undefined;
  // Checked (and hashed) once, before the proxy starts: a bad file fails here with its field named.
  const deployment = hosted ? readDeployment(spec.deployment!, spec.model) : undefined;
  const key = (): string | undefined => {
    if (spec.api_key_env === undefined) return undefined;
    const value = process.env[spec.api_key_env];
    if (!value)
      throw new GatewayError(500, 'server_error', 'missing_api_key', `environment variable ${spec.api_key_env} is not set where the gateway runs; set it to the key the Switchyard proxy expects`);
    return value;
  };
  const sessionHeaders = (ctx: CallContext): Record<string, string> =>
    spec.forward_session_id && ctx.session ? Object.fromEntries(spec.session_id_headers.map((name) => [name.toLowerCase(), ctx.session!])) : {};

  function upstreamAt(rootUrl: string): Backend {
    const { deployment: _d, proxy_port: _p, session_id_headers: _h, forward_session_id: _f, proxy_log_file: _l, api_key_env: _k, ...upstream } = spec;
    return openaiBackend(
      { ...upstream, backend: 'openai', base_url: `${rootUrl}/v1`, api_key_env: spec.api_key_env ?? '' },
      { key, callHeaders: sessionHeaders, label: `Switchyard route ${spec.model} at ${rootUrl}` },
    );
  }

  const serving: Promise<Serving> = hosted
    ? hostProxy(deployment!.path, { port: spec.proxy_port, logFile: spec.proxy_log_file, log }).then((proxy) => ({
        rootUrl: proxy.rootUrl,
        version: proxy.version,
        backend: upstreamAt(proxy.rootUrl),
        hosted: proxy,
      }))
    : Promise.resolve().then(() => {
        const rootUrl = [spec.base_url!].flat()[0]!.replace(/\/+$/, '').replace(/\/v1$/, '');
        return { rootUrl, version: null, backend: upstreamAt(rootUrl) };
      });
  // A failed start is reported by every call (and by close); it must not also crash the process as unhandled.
  serving.catch((e: unknown) => log.error({ err: e, deployment: spec.deployment }, 'switchyard: the proxy did not start'));

  async function ready(): Promise<Serving> {
    try {
      return await serving;
    } catch (e) {
      throw new GatewayError(502, 'upstream_error', 'upstream_unreachable', `the Switchyard proxy for route ${spec.model} is not serving: ${(e as Error).message}`);
    }
  }

  const recorded = new Map<string, Promise<void>>();
  /** The condition goes into each run folder before its first call through the proxy. */
  function recordCondition(runDir: string | undefined, s: Serving): Promise<void> {
    if (runDir === undefined) return Promise.resolve();
    let once = recorded.get(runDir);
    if (!once) {
      const condition: SwitchyardCondition = {
        route: spec.model,
        mode: hosted ? 'hosted' : 'attached',
        proxy_root_url: s.rootUrl,
        nemo_switchyard_version: s.version,
        deployment_path: deployment?.path ?? null,
        deployment_sha256: deployment?.sha256 ?? null,
        deployment_toml: deployment?.redacted ?? null,
        session_id_headers: spec.session_id_headers,
        forward_session_id: spec.forward_session_id,
        written_at: new Date().toISOString(),
      };
      once = writeCondition(runDir, SWITCHYARD_CONDITION_FILE, condition).catch((e: unknown) => log.warn({ err: e, run_dir: runDir }, 'switchyard: cannot write the routing condition'));
      recorded.set(runDir, once);
    }
    return once;
  }

  async function snapshotStats(s: Serving): Promise<void> {
    if (recorded.size === 0) return;
    let stats: unknown;
    try {
      const reply = await request(`${s.rootUrl}/v1/stats`, { signal: AbortSignal.timeout(STATS_TIMEOUT_MS), headers: key() ? { authorization: `Bearer ${key()}` } : {} });
      if (reply.statusCode !== 200) return void (await reply.body.text(), log.warn({ status: reply.statusCode }, 'switchyard: /v1/stats did not answer 200; no stats kept'));
      stats = await reply.body.json();
    } catch (e) {
      return log.warn({ err: e }, 'switchyard: cannot read /v1/stats; no stats kept');
    }
    // A hosted proxy lives exactly as long as this gateway; an attached one counts everything it ever served.
    const snapshot = {
      scope: hosted ? 'the proxy this gateway hosted, over its lifetime' : 'an attached proxy, over its lifetime (other callers included)',
      mode: hosted ? 'hosted' : 'attached',
      written_at: new Date().toISOString(),
      stats,
    };
    await Promise.all(
      [...recorded.keys()].map((runDir) => writeCondition(runDir, SWITCHYARD_STATS_FILE, snapshot).catch((e: unknown) => log.warn({ err: e, run_dir: runDir }, 'switchyard: cannot write the stats'))),
    );
  }

  function served(ctx: CallContext, model: string | undefined): void {
    ctx.served?.({ by: 'switchyard', route: spec.model, target: model ?? 'unknown', ...(model ? { model } : {}), ...(spec.forward_session_id && ctx.session ? { session: ctx.session } : {}) });
  }

  return {
    kind: 'switchyard',
    hostedTools: spec.api !== 'chat',
    async responses(req, ctx) {
      const s = await ready();
      await recordCondition(ctx.runDir, s);
      const response = await s.backend.responses(req, ctx);
      served(ctx, response.model ?? undefined);
      return response;
    },
    async chatCompletions(req, ctx) {
      const s = await ready();
      await recordCondition(ctx.runDir, s);
      const completion = await s.backend.chatCompletions(req, ctx);
      served(ctx, completion.model);
      return completion;
    },
    async close() {
      let s: Serving;
      try {
        s = await serving;
      } catch {
        return;
      }
      await snapshotStats(s);
      await s.backend.close?.();
      await s.hosted?.stop();
    },
  };
}
