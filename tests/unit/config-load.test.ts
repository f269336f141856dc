// NeMo Gym-style configuration: includes merged post-order, then env.yaml, then overrides; interpolation;
// every problem reported with its file and key path. The files are written by each test.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { serverInstances, referenceProblems } from '../../src/config/check';
import { loadConfig } from '../../src/config/load';
import { redact } from '../../src/config/redact';
import { GymError } from '../../src/errors';
import { tempDir } from '../helpers/run';

let dir: string;
const file = (name: string, text: string) => {
  const p = path.join(dir, name);
  mkdirSync(path.dirname(p), { recursive: true });
  writeFileSync(p, text);
  return p;
};
const load = (opts: { files?: string[]; overrides?: string[]; env?: Record<string, string>; envYaml?: string } = {}) => loadConfig({ cwd: dir, env: {}, ...opts });
const failure = (fn: () => unknown): GymError => {
  try {
    fn();
  } catch (e) {
    if (e instanceof GymError) return e;
    throw e;
  }
  throw new Error('expected a GymError');
};

beforeEach(async () => {
  dir = await tempDir('gymflow-config-');
});

describe('merge order', () => {
  it('merges an included file before its includer, however deep, and a later sibling with its includes over an earlier one', () => {
    file('deep/c.yaml', 'x: c\ny: c\nz: c\nw: c\n');
    file('b.yaml', 'config_paths: [deep/c.yaml]\ny: b\nz: b\n');
    file('a.yaml', 'config_paths: [b.yaml]\nz: a\n');
    file('r.yaml', 'w: r\n');
    file('q.yaml', 'config_paths: [r.yaml]\n');
    file('p.yaml', 'w: p\n');
    const { config, files } = load({ files: ['a.yaml', 'p.yaml', 'q.yaml'] });
    expect(config).toMatchObject({ x: 'c', y: 'b', z: 'a', w: 'r' });
    expect(files.map((f) => path.relative(dir, f))).toEqual(['deep/c.yaml', 'b.yaml', 'a.yaml', 'p.yaml', 'r.yaml', 'q.yaml']);
  });

  it('puts env.yaml over the files and the command line over env.yaml; mappings merge, lists are replaced', () => {
    file('base.yaml', 'srv: {opts: {a: 1, b: 1, list: [1, 2, 3]}}\nk: base\n');
    const envYaml = file('env.yaml', 'config_paths: [base.yaml]\nsrv: {opts: {b: 2, list: [9]}}\nk: env\n');
    const { config, sources } = load({ overrides: ['srv.opts.a=10', '++k=cli'] });
    expect(config).toMatchObject({ srv: { opts: { a: 10, b: 2, list: [9] } }, k: 'cli' });
    expect(sources.get('srv.opts.b')).toBe(envYaml);
    expect(sources.get('srv.opts.a')).toBe('command line');
    expect(sources.get('srv.opts.list')).toBe(envYaml);
  });

  it('merges a file listed twice once, where it first appears, and says so', () => {
    file('shared.yaml', 'v: shared\n');
    file('one.yaml', 'config_paths: [shared.yaml]\nv: one\n');
    file('two.yaml', 'config_paths: [shared.yaml]\n');
    const { config, warnings } = load({ files: ['one.yaml', 'two.yaml'] });
    expect(config.v).toBe('one');
    expect(warnings).toEqual([`${path.join(dir, 'shared.yaml')} is listed more than once (again by ${path.join(dir, 'two.yaml')}); it is merged once, where it first appears`]);
  });
});

describe('overrides', () => {
  it('reads values as YAML, adds with + and ++, and refuses to change a key the configuration lacks', () => {
    file('a.yaml', 'n: 1\n');
    const { config } = load({ files: ['a.yaml'], overrides: ['n=2', '+list=[a, b]', '++m.deep={x: true}', '+empty='] });
    expect(config).toMatchObject({ n: 2, list: ['a', 'b'], m: { deep: { x: true } }, empty: '' });
    expect(failure(() => load({ files: ['a.yaml'], overrides: ['nn=2'] })).message).toBe('override "nn=2": the configuration has no key nn; use +nn=2 to add it');
    expect(failure(() => load({ overrides: ['a.b'] })).message).toBe('override "a.b" must be key.path=value, +key.path=value or ++key.path=value');
    expect(failure(() => load({ overrides: ['+a..b=1'] })).message).toBe('override "+a..b=1": "" is not a key name (letters, digits, _ and -)');
    expect(failure(() => load({ overrides: ['+a=[1, 2'] })).message).toMatch(/^override "\+a=\[1, 2": the value is not valid YAML/);
  });
});

describe('interpolation', () => {
  it('resolves key references keeping their type, text with several references, and environment variables with typed defaults', () => {
    file(
      'a.yaml',
      [
        'host: 127.0.0.1',
        'port: 8000',
        'url: http://${host}:${port}/v1',
        'same_port: ${port}',
        'nested:',
        '  copy: ${block}',
        'block:',
        '  k: ${port}',
        'key: ${env:MY_KEY}',
        'flag: ${oc.env:UNSET_FLAG,false}',
        'fallback: ${oc.env:UNSET,plain text}',
        'literal: \\${not.a.ref}',
      ].join('\n'),
    );
    const { config } = load({ files: ['a.yaml'], env: { MY_KEY: 'from-env' } });
    expect(config).toMatchObject({ url: 'http://127.0.0.1:8000/v1', same_port: 8000, nested: { copy: { k: 8000 } }, key: 'from-env', flag: false, fallback: 'plain text', literal: '${not.a.ref}' });
  });

  it('reports every unresolved reference, unset variable, cycle and ??? at once, with the file and key path', () => {
    const a = file('a.yaml', 'model:\n  url: ${policy_base_url}\nkey: ${env:NO_SUCH_VAR}\nloop_a: ${loop_b}\nloop_b: ${loop_a}\nneeded: ???\nodd: ${foo:bar}\n');
    const e = failure(() => load({ files: ['a.yaml'] }));
    expect(e.code).toBe('BAD_INPUT');
    expect(e.message.split('\n')).toEqual([
      'the configuration has 5 problem(s):',
      `  ${a}: model.url: \${policy_base_url} refers to policy_base_url, which no file, env.yaml or override sets; pass ++policy_base_url=<value>`,
      `  ${a}: key: \${env:NO_SUCH_VAR}: the environment variable NO_SUCH_VAR is not set (give a default: \${env:NO_SUCH_VAR,<default>})`,
      `  ${a}: loop_b: \${loop_a} refers back to itself through loop_a → loop_b → loop_a`,
      `  ${a}: needed: needed must be given (it is ??? in the configuration); pass ++needed=<value>`,
      `  ${a}: odd: \${foo:bar}: unknown resolver "foo" (known: env, oc.env)`,
    ]);
  });

  it('names the file, line and column of a file that is not YAML, and a missing include with where it looked', () => {
    file('bad.yaml', 'a: 1\nb: [unclosed\n');
    expect(failure(() => load({ files: ['bad.yaml'] })).message).toMatch(new RegExp(`^${path.join(dir, 'bad.yaml')}:\\d+:\\d+: not valid YAML: `));
    file('dup.yaml', 'a: 1\na: 2\n');
    expect(failure(() => load({ files: ['dup.yaml'] })).message).toMatch(/dup\.yaml:2:1: not valid YAML: Map keys must be unique/);
    const inc = file('inc.yaml', 'config_paths: [missing.yaml]\n');
    const e = failure(() => load({ files: ['inc.yaml'] }));
    expect(e.code).toBe('NOT_FOUND');
    expect(e.message.split('\n')[0]).toBe(`${inc}: config file missing.yaml not found; looked at:`);
  });
});

describe('what a configuration may hold', () => {
  it('reports an unknown top-level setting, a malformed server and a dangling reference with the file that set them', () => {
    const a = file(
      'a.yaml',
      [
        'policy_model_name: m',
        'num_repeat: 4',
        'env_srv: {resources_servers: {mcqa: {entrypoint: app.py}}}',
        'agent: {responses_api_agents: {simple_agent: {resources_server: {type: resources_servers, name: env_srv}, model_server: {type: responses_api_models, name: policy_model}}}}',
        'broken: {resource_servers: {mcqa: {}}}',
      ].join('\n'),
    );
    const { config, sources } = load({ files: ['a.yaml'] });
    const { servers, problems } = serverInstances(config, sources);
    expect(servers.map((s) => [s.name, s.type, s.implementation])).toEqual([
      ['env_srv', 'resources_servers', 'mcqa'],
      ['agent', 'responses_api_agents', 'simple_agent'],
    ]);
    expect(problems.map((p) => `${p.source}: ${p.path}: ${p.message}`)).toEqual([
      `${a}: num_repeat: unknown setting "num_repeat" (not one of NeMo Gym's top-level settings, and not a server instance)`,
      `${a}: broken: "broken" is not a server instance: it must hold exactly one of resources_servers, responses_api_agents, responses_api_models, environment_servers, found resource_servers`,
    ]);
    expect(referenceProblems(servers, sources).map((p) => `${p.source}: ${p.path}: ${p.message}`)).toEqual([
      `${a}: agent.responses_api_agents.simple_agent.model_server: refers to responses_api_models "policy_model", which the configuration does not define; no responses_api_models is defined`,
    ]);
  });

  it('redacts keys that name secrets and any text holding a secret variable’s value, but not where a secret is kept', () => {
    const shown = redact(
      { openai_api_key: 'sk-abc', api_key_env: 'OPENAI_API_KEY', headers: { Authorization: 'Bearer x' }, url: 'http://h/?k=tok-123456', n: 3 },
      { SERVICE_TOKEN: 'tok-123456', HOME: '/root' },
    );
    expect(shown).toEqual({ openai_api_key: '***', api_key_env: 'OPENAI_API_KEY', headers: { Authorization: '***' }, url: 'http://h/?k=***', n: 3 });
  });
});

describe('gym config show', () => {
  const FIXTURES = path.resolve(import.meta.dirname, '../fixtures/nemo-gym-configs');
  it("resolves NeMo Gym's own mcqa and openai_model configs with an env.yaml, blanking the key", async () => {
    const { gymHere } = await import('../helpers/gym-here');
    const r = await gymHere([
      'config',
      'show',
      '--search-dir',
      FIXTURES,
      '--env-yaml',
      path.join(FIXTURES, 'env.yaml'),
      '+config_paths=[resources_servers/mcqa/configs/mcqa.yaml,responses_api_models/openai_model/configs/openai_model.yaml]',
      '++mcqa.resources_servers.mcqa.domain=science',
      '--json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const shown = JSON.parse(r.stdout);
    expect(shown.policy_model.responses_api_models.openai_model).toEqual({
      entrypoint: 'app.py',
      openai_base_url: 'http://127.0.0.1:8000/v1',
      openai_api_key: '***',
      openai_model: 'my-model',
      openai_default_headers: {},
      drop_input_reasoning_items: false,
    });
    expect(shown.mcqa.resources_servers.mcqa.domain).toBe('science');
    expect(shown.mcqa_simple_agent.responses_api_agents.simple_agent.datasets.map((d: { name: string }) => d.name)).toEqual(['train', 'validation', 'example', 'example_with_template_metadata']);
    expect(r.stdout).not.toContain('sk-secret-from-env-yaml');
  });

  it('refuses a configuration with problems, listing each with its file, and exits 3', async () => {
    const { gymHere } = await import('../helpers/gym-here');
    const a = file('a.yaml', 'modle:\n  url: ${policy_base_url}\n');
    const r = await gymHere(['config', 'show', '--config', a, '--env-yaml', file('env.yaml', 'policy_model_name: m\n')]);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain(`${a}: modle.url: \${policy_base_url} refers to policy_base_url`);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});
