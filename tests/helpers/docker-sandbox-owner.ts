// A process that creates a docker sandbox and exits without destroying it, as a killed worker leaves one:
// argv is the engine's socket path and the image; it prints the sandbox id.
import { DockerProvider } from '../../src/sandboxes/docker/provider';

const [socketPath, image] = process.argv.slice(2);
const provider = new DockerProvider({ socketPath: socketPath! });
const sandbox = await provider.create({ image: image!, labels: { run: 'run-orphan', rollout: 'r0', attempt: 1, user: 'tester' } });
process.stdout.write(`${sandbox.id}\n`);
await provider.close();
