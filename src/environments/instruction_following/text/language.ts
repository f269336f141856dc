// Language identification for the language and English-case checkers. NeMo Gym calls Python's
// langdetect; eld is a JS n-gram detector returning the same ISO 639-1 codes. Both are statistical,
// so verdicts can differ on very short or mixed-language answers, and eld does not know Nepali or
// Swahili (it names a neighbour instead).
import { eld } from 'eld/medium';

/** langdetect.detect(text), or undefined where langdetect raises "No features in text". */
export function detectLanguage(text: string): string | undefined {
  const code = eld.detect(text).language;
  if (code === '') return undefined;
  // langdetect names Chinese by script ("zh-cn", "zh-tw"), never plain "zh".
  return code === 'zh' ? 'zh-cn' : code;
}
