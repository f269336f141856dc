// LaTeX answer boxes as NeMo Gym's mcqa reads them: the LAST `\boxed{`, closed by brace counting,
// with any `\text{…}` wrappers around the whole content peeled off.
import { PY_WHITESPACE_CLASS } from '../../python/str';

const BOXED = '\\boxed{';
const TEXT_WRAPPER = new RegExp(`^\\\\text\\{[${PY_WHITESPACE_CLASS}]*([\\s\\S]*?)[${PY_WHITESPACE_CLASS}]*\\}$`, 'u');

/** The content of the last `\boxed{…}`, or null when there is none or it never closes. */
export function lastBoxedContent(text: string): string | null {
  const start = text.lastIndexOf(BOXED);
  if (start === -1) return null;
  return balancedContent(text, start + BOXED.length);
}

/** The text from `from` up to the brace that closes an already-open `{`, or null if none does. */
export function balancedContent(text: string, from: number): string | null {
  let depth = 1;
  for (let i = from; i < text.length; i++) {
    if (text[i] === '{') depth++;
    else if (text[i] === '}' && --depth === 0) return text.slice(from, i);
  }
  return null;
}

/** Repeatedly unwraps a `\text{…}` that spans the whole string (inner padding dropped). */
export function peelTextWrappers(s: string): string {
  for (;;) {
    const m = TEXT_WRAPPER.exec(s);
    if (!m) return s;
    s = m[1]!;
  }
}
