// DesktopEnv.step rewrites a pyautogui command before sending it: pyautogui types '>' for '<' on OSWorld's
// desktop, so every press('<') and each '<' inside a typewrite('...') becomes hotkey("shift", ","). Pure.
import { PyRegex } from '../../python/regex';

const PRESS_LESS_THAN = new PyRegex('pyautogui\\.press\\(["\'](?:<|\\\\u003c)["\']\\)');
const TYPEWRITE = new PyRegex('pyautogui\\.typewrite\\((["\'])(.*?)\\1\\)');
const SHIFT_COMMA = 'pyautogui.hotkey("shift", ",")';

/**
 * Python's `s.encode('utf-8').decode('unicode_escape')`: backslash escapes are read, and every other byte is one
 * Latin-1 character (so non-ASCII text comes out as its UTF-8 bytes). Null when Python would raise.
 */
export function unicodeEscapeDecode(s: string): string | null {
  const bytes = new TextEncoder().encode(s);
  let out = '';
  const simple: Record<string, string> = { '\n': '', '\\': '\\', "'": "'", '"': '"', a: '\x07', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v' };
  const hex = (from: number, count: number): number | null => {
    if (from + count > bytes.length) return null;
    const text = String.fromCharCode(...bytes.slice(from, from + count));
    return /^[0-9a-fA-F]+$/.test(text) ? parseInt(text, 16) : null;
  };
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    if (b !== 0x5c) {
      out += String.fromCharCode(b);
      continue;
    }
    if (i + 1 >= bytes.length) return null; // a trailing backslash
    const c = String.fromCharCode(bytes[++i]!);
    if (c in simple) out += simple[c];
    else if (c >= '0' && c <= '7') {
      let digits = c;
      while (digits.length < 3 && i + 1 < bytes.length && bytes[i + 1]! >= 0x30 && bytes[i + 1]! <= 0x37) digits += String.fromCharCode(bytes[++i]!);
      out += String.fromCharCode(parseInt(digits, 8));
    } else if (c === 'x' || c === 'u' || c === 'U') {
      const count = c === 'x' ? 2 : c === 'u' ? 4 : 8;
      const code = hex(i + 1, count);
      if (code === null || code > 0x10ffff) return null;
      out += String.fromCodePoint(code);
      i += count;
    } else if (c === 'N')
      return null; // \N{name}: not ported; Python may read it, Gymflow keeps the text as it was
    else out += '\\' + c; // an unknown escape stays as written
  }
  return out;
}

export function fixLessThan(command: string): string {
  const pressed = PRESS_LESS_THAN.sub(command, () => SHIFT_COMMA);
  return TYPEWRITE.sub(pressed, (m) => {
    const quote = m.groups[0]!;
    const content = unicodeEscapeDecode(m.groups[1]!) ?? m.groups[1]!;
    if (!content.includes('<')) return m.text;
    const parts: string[] = [];
    content.split('<').forEach((part, i) => {
      if (i > 0) parts.push(SHIFT_COMMA);
      if (part) parts.push(`pyautogui.typewrite(${quote}${part}${quote})`);
    });
    return parts.join('; ');
  });
}
