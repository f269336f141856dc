// The mock policy's player for wmt_translation: the reference translation when correct (chrF 100), the
// untranslated source text otherwise.
import { assistantMessage } from '../example_single_tool_call';
import type { Oracle } from '../oracle';
import type { WmtTranslationTask } from '.';

export const wmtTranslationOracle: Oracle<WmtTranslationTask> = (task, _history, { correct }) => [assistantMessage(correct ? task.translation : task.text)];
