// Python's json.loads: JSON plus the bare NaN, Infinity and -Infinity literals Python reads as floats.
// Structured-output answers and IFEval's json_format check both parse with it.

const SPECIAL: Record<string, number> = { NaN: Number.NaN, Infinity: Number.POSITIVE_INFINITY, '-Infinity': Number.NEGATIVE_INFINITY };

export function parsePythonJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    const marked = markSpecialNumbers(text);
    if (!marked) throw error;
    return JSON.parse(marked.text, (_key, value: unknown) =>
      typeof value === 'string' && value.startsWith(marked.marker) ? SPECIAL[value.slice(marked.marker.length)] : value,
    );
  }
}

/** Rewrites the special literals outside strings as marked strings, or null if there are none. */
function markSpecialNumbers(text: string): { text: string; marker: string } | null {
  const marker = `\u0000pyjson${Math.random().toString(36).slice(2)}:`;
  let out = '';
  let found = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === '"') {
      const end = stringEnd(text, i);
      out += text.slice(i, end);
      i = end - 1;
      continue;
    }
    const literal = ['-Infinity', 'Infinity', 'NaN'].find((l) => text.startsWith(l, i));
    if (literal) {
      out += JSON.stringify(marker + literal);
      i += literal.length - 1;
      found = true;
      continue;
    }
    out += ch;
  }
  return found ? { text: out, marker } : null;
}

function stringEnd(text: string, open: number): number {
  for (let i = open + 1; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === '"') return i + 1;
  }
  return text.length;
}
