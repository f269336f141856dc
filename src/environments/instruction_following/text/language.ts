// Language identification for the language and English-case checkers. NeMo Gym calls Python's
// langdetect; eld is a JS n-gram detector returning the same ISO 639-1 codes. Both are statistical,
// so verdicts can differ on very short or mixed-language answers, and eld does not know Nepali or
// Swahili (it names a neighbour instead).
import { GymError } from '../../../errors';

type Detector = (typeof import('eld/medium'))['eld'];
let detector: Detector | undefined;

/**
 * Loads eld's n-gram tables (half a second of start-up and tens of MiB), once, when the environment
 * first verifies: every `gym` command imports the environment registry, and most never grade a language.
 */
export async function loadLanguageDetector(): Promise<void> {
  detector ??= (await import('eld/medium')).eld;
}

export function languageDetectorLoaded(): boolean {
  return detector !== undefined;
}

/** langdetect.detect(text), or undefined where langdetect raises "No features in text". */
export function detectLanguage(text: string): string | undefined {
  if (!detector) throw new GymError('INTERNAL', 'detectLanguage called before loadLanguageDetector');
  const code = detector.detect(text).language;
  if (code === '') return undefined;
  // langdetect names Chinese by script ("zh-cn", "zh-tw"), never plain "zh".
  return code === 'zh' ? 'zh-cn' : code;
}
