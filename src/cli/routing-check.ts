// Before a run starts: every Switchyard deployment its model hosts (the model's own, or a routed model's
// targets') is read, checked for its route, and loaded by Switchyard's native server, so a bad file is
// refused with its field named instead of failing every rollout.
import { readDeployment } from '../gateway/backends/switchyard/deployment';
import { checkDeployment } from '../gateway/backends/switchyard/host';
import type { ModelSpec, SwitchyardModelSpec, TargetModelSpec } from '../gateway/spec';

function hosted(spec: ModelSpec | TargetModelSpec | undefined): SwitchyardModelSpec[] {
  if (spec?.backend === 'routed') return Object.values(spec.targets).flatMap(hosted);
  return spec?.backend === 'switchyard' && spec.deployment !== undefined ? [spec] : [];
}

export async function checkRouting(spec: ModelSpec | undefined, say: (line: string) => void, report: boolean): Promise<void> {
  for (const s of hosted(spec)) {
    readDeployment(s.deployment!, s.model);
    const { version } = await checkDeployment(s.deployment!);
    if (report) say(`switchyard: ${s.deployment} loads in nemo-switchyard ${version} (route ${s.model})`);
  }
}
