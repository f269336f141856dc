// Model call records (latency, usage, token ids, attempt) in the run folder's `model_calls/` segments,
// one file per writing process (src/store/segments.ts).
import type { ModelCallRecord } from '../schemas/records';
import { segmentLog } from './segments';

/** The model call log of a run folder, as written by this process. */
export function callLog(runDir: string): { append(record: ModelCallRecord): Promise<void> } {
  return segmentLog(runDir, 'model_calls');
}
