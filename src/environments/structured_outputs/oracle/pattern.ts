// A string matching a schema `pattern`, for the common regex subset schemas use: literals, escapes,
// classes, groups, alternation and quantifiers, each repeated its minimum number of times.

export function samplePattern(pattern: string): string {
  return new Sampler(pattern).alternation();
}

class Sampler {
  private i = 0;
  constructor(private readonly src: string) {}

  alternation(): string {
    const first = this.sequence();
    while (this.src[this.i] === '|') {
      this.i++;
      this.sequence();
    }
    return first;
  }

  private sequence(): string {
    let out = '';
    while (this.i < this.src.length && this.src[this.i] !== '|' && this.src[this.i] !== ')') {
      const atom = this.atom();
      out += atom.repeat(this.quantifier());
    }
    return out;
  }

  private atom(): string {
    const ch = this.src[this.i++]!;
    if (ch === '^' || ch === '$') return '';
    if (ch === '.') return 'a';
    if (ch === '(') {
      if (this.src[this.i] === '?') this.i += this.src[this.i + 1] === '<' && this.src[this.i + 2] !== '=' && this.src[this.i + 2] !== '!' ? this.src.indexOf('>', this.i) - this.i + 1 : 2;
      const inner = this.alternation();
      this.i++;
      return inner;
    }
    if (ch === '[') return this.charClass();
    if (ch === '\\') return escapeSample(this.src[this.i++] ?? '');
    return ch;
  }

  private charClass(): string {
    const negated = this.src[this.i] === '^';
    if (negated) this.i++;
    const members: string[] = [];
    while (this.i < this.src.length && (this.src[this.i] !== ']' || members.length === 0)) {
      let c = this.src[this.i++]!;
      if (c === '\\') c = escapeSample(this.src[this.i++] ?? '');
      if (this.src[this.i] === '-' && this.src[this.i + 1] !== ']') {
        this.i++;
        let end = this.src[this.i++]!;
        if (end === '\\') end = this.src[this.i++]!;
        members.push(`${c}-${end}`);
      } else members.push(c);
    }
    this.i++;
    if (!negated) return members[0]!.split('-')[0]!;
    return ['a', 'b', 'x', '0', '_'].find((c) => !members.some((m) => inRange(c, m))) ?? 'a';
  }

  private quantifier(): number {
    const ch = this.src[this.i];
    let count = 1;
    if (ch === '?' || ch === '*') {
      this.i++;
      count = 0;
    } else if (ch === '+') this.i++;
    else if (ch === '{') {
      const m = /^\{(\d*)(?:,(\d*))?\}/.exec(this.src.slice(this.i));
      if (m) {
        this.i += m[0].length;
        count = Number(m[1] || 0);
      }
    }
    if (this.src[this.i] === '?' || this.src[this.i] === '+') this.i++;
    return count;
  }
}

function inRange(c: string, member: string): boolean {
  if (member.length === 3 && member[1] === '-') return c >= member[0]! && c <= member[2]!;
  return c === member;
}

function escapeSample(c: string): string {
  switch (c) {
    case 'd':
      return '1';
    case 'w':
      return 'a';
    case 's':
      return ' ';
    case 'b':
    case 'B':
    case 'A':
    case 'Z':
      return '';
    case 'D':
    case 'W':
    case 'S':
      return '-';
    case 'n':
      return '\n';
    case 't':
      return '\t';
    default:
      return c;
  }
}
