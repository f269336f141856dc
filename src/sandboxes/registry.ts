// Sandbox providers by name, each loaded only when asked for (a provider's SDK costs nothing to those
// who never use it): `sandboxProvider('local', options)` and the rest of the product never names a class.
import { GymError } from '../errors';
import type { SandboxProvider } from './provider';
import { ProviderName } from './schema';

type Factory = (options: Record<string, unknown>) => Promise<SandboxProvider>;

const PROVIDERS: Partial<Record<ProviderName, Factory>> = {
  local: async (options) => new (await import('./local/provider')).LocalProvider(options),
  docker: async (options) => new (await import('./docker/provider')).DockerProvider(options),
  e2b: async (options) => new (await import('./e2b/provider')).E2bProvider(options),
  apptainer: async (options) => new (await import('./apptainer/provider')).ApptainerProvider(options),
  opensandbox: async (options) => new (await import('./opensandbox/provider')).OpenSandboxProvider(options),
};

export function sandboxProviderNames(): ProviderName[] {
  return ProviderName.options.filter((name) => PROVIDERS[name]);
}

/** The provider called `name`, made with its own options (validated by it). */
export async function sandboxProvider(name: string, options: Record<string, unknown> = {}): Promise<SandboxProvider> {
  const factory = ProviderName.safeParse(name).success ? PROVIDERS[name as ProviderName] : undefined;
  if (!factory) throw new GymError('BAD_INPUT', `unknown sandbox provider ${JSON.stringify(name)}: available are ${sandboxProviderNames().join(', ')}`);
  return factory(options);
}
