// Puzzle text in the shape of reasoning_gym's knights_knaves questions and answers: the island intro,
// one attributed statement per inhabitant, the question, and the answer-format hint the scorer expects.
import type { Rng } from '../../../util/rng';
import { isAtom, type Statement } from './logic';
import type { KnightKnaveTerms } from './terms';

const ATTRIBUTIONS: readonly ((name: string, content: string) => string)[] = [
  (name, content) => `${name} says, "${content}."`,
  (name, content) => `${name} claims that ${content}.`,
  (name, content) => `"${content}," says ${name}.`,
  (name, content) => `${name} insists: "${content}".`,
  (name, content) => `According to ${name}, ${content}.`,
  (name, content) => `${name} tells you, "${content}".`,
  (name, content) => `"${content}" - ${name}.`,
  (name, content) => `${name} announces that ${content}.`,
];

function describe(names: readonly string[], terms: KnightKnaveTerms, s: Statement): string {
  const wrapped = (sub: Statement) => (isAtom(sub) ? describe(names, terms, sub) : `(${describe(names, terms, sub)})`);
  switch (s[0]) {
    case 'telling-truth':
      return `${names[s[1]]} is ${terms.a_knight}`;
    case 'lying':
      return `${names[s[1]]} is ${terms.a_knave}`;
    case 'not': {
      const inner = s[1];
      // "not a knight" reads better as "a knave", which means the same on this island.
      if (isAtom(inner)) return describe(names, terms, [inner[0] === 'telling-truth' ? 'lying' : 'telling-truth', inner[1]]);
      return `it is not the case that ${wrapped(inner)}`;
    }
    case 'and':
    case 'or':
      return (s.slice(1) as Statement[]).map(wrapped).join(` ${s[0]} `);
    case '->':
      return `if ${wrapped(s[1])} then ${wrapped(s[2])}`;
    case '<=>':
      return `${wrapped(s[1])} if and only if ${wrapped(s[2])}`;
  }
}

export function puzzleQuestion(rng: Rng, names: readonly string[], terms: KnightKnaveTerms, statements: readonly Statement[]): string {
  const intro =
    `A very special island is inhabited only by ${terms.knight}s and ${terms.knave}s. ` +
    `${terms.Knight}s always tell the truth, and ${terms.knave}s always lie. ` +
    `You meet ${names.length} inhabitants: ${names.slice(0, -1).join(', ')}, and ${names.at(-1)}.`;
  const said = statements.map((s, i) => ' ' + rng.pick(ATTRIBUTIONS)(names[i]!, describe(names, terms, s))).join('');
  const format = names.map((name) => `${name} is a ${terms.knight}/${terms.knave}`);
  const hint = `${format.slice(0, -1).join(', ')}, and ${format.at(-1)}`;
  return `${intro}${said} So who is ${terms.a_knight} and who is ${terms.a_knave}? (Format your answer like: "${hint}")`;
}

export function puzzleAnswer(names: readonly string[], terms: KnightKnaveTerms, solution: readonly boolean[]): string {
  const parts = names.map((name, i) => `${name} is ${solution[i] ? terms.a_knight : terms.a_knave}`);
  return `${parts.slice(0, -1).join(', ')}, and ${parts.at(-1)}.`;
}
