// A process that owns a local sandbox, so a test can kill it like a crashed worker: it creates one (labels and
// spec from argv), starts a detached daemon in it, prints the sandbox id, and waits to be killed.
import { LocalProvider } from '../../src/sandboxes/local/provider';

const [root, specJson, marker] = process.argv.slice(2);
const sandbox = await new LocalProvider({ root: root! }).create(JSON.parse(specJson!));
await sandbox.startCommand({ command: ['sh', '-c', `setsid /usr/bin/node -e "setInterval(() => {}, 1000)" ${marker} & sleep 100000`], timeoutMs: 3_600_000 });
process.stdout.write(`${JSON.stringify({ id: sandbox.id, dir: sandbox.dir })}\n`);
setInterval(() => {}, 1_000);
