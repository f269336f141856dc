// Aviary's clean_str (from ReAct's Wikipedia tool), applied to every paragraph and suggested title: text
// that Latin-1 can hold has its backslash escapes decoded as Python's unicode-escape codec does.

const SIMPLE: Record<string, string> = { '\\': '\\', "'": "'", '"': '"', a: '\x07', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', '\n': '' };
const HEX_DIGITS: Record<string, number> = { x: 2, u: 4, U: 8 };

/** unicode-escape decoding, or null where Python's codec raises (a truncated escape, `\N{…}`, which needs Unicode's name table). */
function decodeEscapes(text: string): string | null {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (ch !== '\\') {
      out += ch;
      continue;
    }
    const next = text[i + 1];
    if (next === undefined) return null;
    if (Object.hasOwn(SIMPLE, next)) {
      out += SIMPLE[next];
      i++;
    } else if (/[0-7]/.test(next)) {
      const digits = /^[0-7]{1,3}/.exec(text.slice(i + 1))![0];
      out += String.fromCodePoint(parseInt(digits, 8));
      i += digits.length;
    } else if (Object.hasOwn(HEX_DIGITS, next)) {
      const width = HEX_DIGITS[next]!;
      const digits = text.slice(i + 2, i + 2 + width);
      if (!new RegExp(`^[0-9a-fA-F]{${width}}$`).test(digits)) return null;
      const code = parseInt(digits, 16);
      if (code > 0x10ffff) return null;
      out += String.fromCodePoint(code);
      i += 1 + width;
    } else if (next === 'N') {
      return null;
    } else {
      // An unknown escape stays as written (Python warns and keeps the backslash).
      out += ch;
    }
  }
  return out;
}

/** clean_str: decoded escapes for Latin-1 text, the text unchanged otherwise or where decoding fails. */
export function cleanStr(text: string): string {
  if (!text.includes('\\') || /[^\x00-\xff]/.test(text)) return text;
  return decodeEscapes(text) ?? text;
}
