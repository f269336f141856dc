// Just enough XML for doctest's reporter output (SWE-bench reads it with ElementTree): elements, their
// attributes and children; text, comments, processing instructions and CDATA are skipped. Malformed input
// raises, as ElementTree's ParseError does.
import { PyError } from '../../python/errors';

export interface XmlElement {
  tag: string;
  attributes: Map<string, string>;
  children: XmlElement[];
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
const NAME = /[A-Za-z_:][-A-Za-z0-9_:.]*/y;

function fail(what: string): never {
  throw new PyError('ValueError', `XML ParseError: ${what}`);
}

function unescape(text: string): string {
  return text.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[A-Za-z]+);|&/g, (_match, ref: string | undefined) => {
    if (ref === undefined) fail('not well-formed (invalid token): a bare &');
    if (ref.startsWith('#x')) return String.fromCodePoint(parseInt(ref.slice(2), 16));
    if (ref.startsWith('#')) return String.fromCodePoint(parseInt(ref.slice(1), 10));
    const named = ENTITIES[ref];
    if (named === undefined) fail(`undefined entity &${ref};`);
    return named;
  });
}

/** The document's root element. */
export function parseXml(text: string): XmlElement {
  let i = 0;
  const stack: XmlElement[] = [];
  let root: XmlElement | undefined;
  const skipSpace = () => {
    while (i < text.length && /\s/.test(text[i]!)) i++;
  };
  const name = (): string => {
    NAME.lastIndex = i;
    const m = NAME.exec(text);
    if (!m) fail(`not well-formed (invalid token) at offset ${i}`);
    i += m[0].length;
    return m[0];
  };
  const skipPast = (end: string) => {
    const at = text.indexOf(end, i);
    if (at === -1) fail(`unclosed token: no ${end}`);
    i = at + end.length;
  };
  while (i < text.length) {
    const lt = text.indexOf('<', i);
    if (lt === -1) {
      if (text.slice(i).trim() && stack.length === 0) fail('junk after document element');
      break;
    }
    if (text.slice(i, lt).trim() && stack.length === 0) fail(root ? 'junk after document element' : 'syntax error: text before the root element');
    unescape(text.slice(i, lt));
    i = lt;
    if (text.startsWith('<!--', i)) skipPast('-->');
    else if (text.startsWith('<![CDATA[', i)) skipPast(']]>');
    else if (text.startsWith('<?', i) || text.startsWith('<!', i)) skipPast('>');
    else if (text.startsWith('</', i)) {
      i += 2;
      const tag = name();
      skipSpace();
      if (text[i] !== '>') fail(`not well-formed: </${tag} is not closed`);
      i++;
      const open = stack.pop();
      if (!open || open.tag !== tag) fail(`mismatched tag: </${tag}>`);
    } else {
      i++;
      if (root && stack.length === 0) fail('junk after document element');
      const element: XmlElement = { tag: name(), attributes: new Map(), children: [] };
      for (;;) {
        skipSpace();
        if (text.startsWith('/>', i) || text[i] === '>') break;
        const attribute = name();
        skipSpace();
        if (text[i] !== '=') fail(`not well-formed: attribute ${attribute} has no value`);
        i++;
        skipSpace();
        const quote = text[i];
        if (quote !== '"' && quote !== "'") fail(`not well-formed: attribute ${attribute}'s value is not quoted`);
        const close = text.indexOf(quote, i + 1);
        if (close === -1) fail(`unclosed token: attribute ${attribute}`);
        const raw = text.slice(i + 1, close);
        if (raw.includes('<')) fail(`not well-formed: < in attribute ${attribute}`);
        if (element.attributes.has(attribute)) fail(`duplicate attribute ${attribute}`);
        element.attributes.set(attribute, unescape(raw));
        i = close + 1;
      }
      stack.at(-1)?.children.push(element);
      root ??= element;
      if (text.startsWith('/>', i)) i += 2;
      else {
        i++;
        stack.push(element);
      }
    }
  }
  if (!root) fail('no element found');
  if (stack.length) fail(`no element found: <${stack.at(-1)!.tag}> is not closed`);
  return root;
}
