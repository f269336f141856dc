// `gym config show`: the configuration a run would use, resolved as NeMo Gym resolves it (includes,
// env.yaml, overrides, interpolations), with secrets blanked and, on request, the file behind each key.
import type { Logger } from 'pino';
import { stringify } from 'yaml';
import { referenceProblems, serverInstances } from '../../config/check';
import { configError, loadConfig } from '../../config/load';
import { redact } from '../../config/redact';
import { PACKAGE_ROOT } from '../../util/paths';
import { parseFlags } from '../args';

const USAGE = `usage: gym config show [--config FILE ...] [--env-yaml FILE] [--search-dir DIR ...] [--sources] [--json] [key.path=value | +key=value | ++key=value ...]
  --config FILE    a configuration file (repeatable); its config_paths are merged before it
  --env-yaml FILE  the env.yaml to merge after the files (default ./env.yaml when there is one)
  --search-dir DIR where relative config paths are looked for first (repeatable; also GYMFLOW_CONFIG_ROOTS)
  --sources        list the file (or command line) that set each key
  --json           print JSON instead of YAML`;

export async function configShow(argv: string[], _logger: Logger, say: (line: string) => void): Promise<void> {
  const { values, positionals } = parseFlags(
    argv,
    { config: { type: 'string', multiple: true }, 'search-dir': { type: 'string', multiple: true }, 'env-yaml': { type: 'string' }, sources: { type: 'boolean' }, json: { type: 'boolean' } },
    USAGE,
  );
  if (values.help) return say(USAGE);
  const loaded = loadConfig({
    files: values.config ?? [],
    overrides: positionals,
    cwd: process.cwd(),
    env: process.env,
    envYaml: values['env-yaml'],
    searchDirs: values['search-dir'] ?? [],
    installRoot: PACKAGE_ROOT,
  });
  const { servers, problems } = serverInstances(loaded.config, loaded.sources);
  const all = [...problems, ...referenceProblems(servers, loaded.sources)];
  if (all.length > 0) throw configError(all);
  for (const w of loaded.warnings) process.stderr.write(`gym: warning: ${w}\n`);
  const shown = redact(loaded.config, process.env);
  say(values.json ? JSON.stringify(shown, null, 2) : stringify(shown).trimEnd());
  if (values.sources) {
    say('');
    say('# where each key was set');
    for (const [key, source] of [...loaded.sources].sort(([a], [b]) => a.localeCompare(b))) say(`# ${key}: ${source}`);
  }
}
