// Whether the interop tests can run: they need the NeMo Gym venv scripts/setup-nemo-gym.sh makes. CI always
// makes it, so there a missing venv is an error; on a developer's machine the tests are skipped and say why.
import { existsSync } from 'node:fs';
import { NEMO_GYM_VENV_PYTHON } from '../../src/environments/remote/launch';

export const nemoGymVenv = existsSync(NEMO_GYM_VENV_PYTHON);
if (!nemoGymVenv && process.env.CI) throw new Error(`CI must run the interop tests, but there is no NeMo Gym venv at ${NEMO_GYM_VENV_PYTHON}: .ci/run runs scripts/setup-nemo-gym.sh`);

/** The suite's title, saying why it is skipped when it is. */
export function interopTitle(title: string): string {
  return nemoGymVenv ? title : `${title} (skipped: no NeMo Gym venv at ${NEMO_GYM_VENV_PYTHON}; run bash scripts/setup-nemo-gym.sh)`;
}
