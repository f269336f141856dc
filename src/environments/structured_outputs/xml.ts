// Python's xmltodict.parse (over expat) for one XML document: well-formedness as expat checks it
// (one root, no junk after it, only the five predefined entities, matched tags), and xmltodict's
// mapping: attributes as "@name", repeated children as lists, stripped text as "#text" or as the
// element's value, and None for an element with neither.
import { pyStrip } from '../../python/str';

export type XmlValue = string | null | XmlObject | XmlValue[];
export interface XmlObject {
  [key: string]: XmlValue;
}

const NAME = /[\p{L}_:][\p{L}\p{N}_:.\-\u00B7\u0300-\u036F\u203F\u2040]*/uy;
const PREDEFINED: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };
const INVALID_CHAR = /[\x00-\x08\x0B\x0C\x0E-\x1F\uFFFE\uFFFF]/;

export class XmlError extends Error {
  override name = 'ExpatError';
}

export function parseXml(input: string): XmlObject {
  if (INVALID_CHAR.test(input)) throw new XmlError('not well-formed (invalid token)');
  return new Parser(input.replace(/\r\n?/g, '\n')).document();
}

interface Frame {
  item: XmlObject | null;
  data: string[];
}

class Parser {
  private pos = 0;
  constructor(private readonly src: string) {}

  document(): XmlObject {
    if (this.src.startsWith('\ufeff')) this.pos = 1;
    if (this.src.startsWith('<?xml', this.pos) && /\s/.test(this.src[this.pos + 5] ?? '')) this.skipPast('?>');
    this.misc(true);
    if (this.src[this.pos] !== '<') throw new XmlError(this.pos >= this.src.length ? 'no element found' : 'syntax error');
    const root: Frame = { item: null, data: [] };
    this.element(root);
    this.misc(false);
    if (this.pos < this.src.length) throw new XmlError('junk after document element');
    return root.item!;
  }

  /** Whitespace, comments and processing instructions around the root (and one DOCTYPE before it). */
  private misc(beforeRoot: boolean): void {
    for (;;) {
      while (/\s/.test(this.src[this.pos] ?? '')) this.pos++;
      if (this.src.startsWith('<!--', this.pos)) this.comment();
      else if (this.src.startsWith('<?', this.pos)) this.pi();
      else if (beforeRoot && this.src.startsWith('<!DOCTYPE', this.pos)) this.doctype();
      else return;
    }
  }

  private element(parent: Frame): void {
    this.pos++;
    const name = this.name();
    const frame: Frame = { item: this.attributes(), data: [] };
    if (this.src.startsWith('/>', this.pos)) {
      this.pos += 2;
    } else {
      this.expect('>');
      this.content(frame, name);
    }
    finish(parent, name, frame);
  }

  private attributes(): XmlObject | null {
    let attrs: XmlObject | null = null;
    for (;;) {
      const hadSpace = this.spaces();
      const ch = this.src[this.pos];
      if (ch === '>' || ch === '/') return attrs;
      if (!hadSpace) throw new XmlError('not well-formed (invalid token)');
      const key = `@${this.name()}`;
      this.spaces();
      this.expect('=');
      this.spaces();
      const quote = this.src[this.pos];
      if (quote !== '"' && quote !== "'") throw new XmlError('not well-formed (invalid token)');
      const end = this.src.indexOf(quote, this.pos + 1);
      if (end < 0) throw new XmlError('unclosed token');
      const raw = this.src.slice(this.pos + 1, end);
      if (raw.includes('<')) throw new XmlError('not well-formed (invalid token)');
      attrs ??= dict();
      if (key in attrs) throw new XmlError('duplicate attribute');
      attrs[key] = decodeEntities(raw).replace(/[\t\n]/g, ' ');
      this.pos = end + 1;
    }
  }

  private content(frame: Frame, name: string): void {
    for (;;) {
      const lt = this.src.indexOf('<', this.pos);
      if (lt < 0) throw new XmlError('no element found');
      const text = this.src.slice(this.pos, lt);
      if (text.includes(']]>')) throw new XmlError('not well-formed (invalid token)');
      if (text) frame.data.push(decodeEntities(text));
      this.pos = lt;
      if (this.src.startsWith('</', this.pos)) {
        this.pos += 2;
        if (this.name() !== name) throw new XmlError('mismatched tag');
        this.spaces();
        this.expect('>');
        return;
      }
      if (this.src.startsWith('<!--', this.pos)) this.comment();
      else if (this.src.startsWith('<![CDATA[', this.pos)) frame.data.push(this.skipPast(']]>', 9));
      else if (this.src.startsWith('<?', this.pos)) this.pi();
      else this.element(frame);
    }
  }

  private name(): string {
    NAME.lastIndex = this.pos;
    const m = NAME.exec(this.src);
    if (!m) throw new XmlError('not well-formed (invalid token)');
    this.pos += m[0].length;
    return m[0];
  }

  private comment(): void {
    const body = this.skipPast('-->', 4);
    if (body.includes('--')) throw new XmlError('not well-formed (invalid token)');
  }

  private pi(): void {
    const body = this.skipPast('?>', 2);
    if (/^xml(\s|$)/i.test(body)) throw new XmlError('XML or text declaration not at start of entity');
  }

  private doctype(): void {
    const close = this.src.indexOf('>', this.pos);
    const bracket = this.src.indexOf('[', this.pos);
    // Entity declarations would need a DTD processor; xmltodict refuses them by default anyway.
    if (bracket >= 0 && (close < 0 || bracket < close)) throw new XmlError('entities are disabled');
    if (close < 0) throw new XmlError('unclosed token');
    this.pos = close + 1;
  }

  /** Moves past `terminator`, returning what lay between the opener (of length `skip`) and it. */
  private skipPast(terminator: string, skip = 0): string {
    const end = this.src.indexOf(terminator, this.pos + skip);
    if (end < 0) throw new XmlError('unclosed token');
    const body = this.src.slice(this.pos + skip, end);
    this.pos = end + terminator.length;
    return body;
  }

  private spaces(): boolean {
    const start = this.pos;
    while (/[ \t\n]/.test(this.src[this.pos] ?? '')) this.pos++;
    return this.pos > start;
  }

  private expect(ch: string): void {
    if (this.src[this.pos] !== ch) throw new XmlError('not well-formed (invalid token)');
    this.pos++;
  }
}

/** xmltodict's endElement: the element's value is its dict, or its stripped text, or None. */
function finish(parent: Frame, name: string, frame: Frame): void {
  const data = pyStrip(frame.data.join('')) || null;
  let value: XmlValue = data;
  if (frame.item) {
    if (data !== null) push(frame.item, '#text', data);
    value = frame.item;
  }
  parent.item ??= dict();
  push(parent.item, name, value);
}

/** A key-value object without a prototype, so a tag named "__proto__" is just a key. */
function dict(): XmlObject {
  return Object.create(null) as XmlObject;
}

function push(item: XmlObject, key: string, value: XmlValue): void {
  if (!(key in item)) item[key] = value;
  else if (Array.isArray(item[key])) (item[key] as XmlValue[]).push(value);
  else item[key] = [item[key]!, value];
}

function decodeEntities(text: string): string {
  return text.replace(/&([^;&\s]*);?/g, (whole, ref: string) => {
    if (!whole.endsWith(';')) throw new XmlError('not well-formed (invalid token)');
    if (ref in PREDEFINED) return PREDEFINED[ref]!;
    const code = /^#x([0-9a-fA-F]+)$/.exec(ref) ? parseInt(ref.slice(2), 16) : /^#([0-9]+)$/.test(ref) ? parseInt(ref.slice(1), 10) : NaN;
    if (Number.isNaN(code)) throw new XmlError('undefined entity');
    if (code > 0x10ffff || code === 0 || (code < 0x20 && ![9, 10, 13].includes(code))) throw new XmlError('reference to invalid character number');
    return String.fromCodePoint(code);
  });
}
