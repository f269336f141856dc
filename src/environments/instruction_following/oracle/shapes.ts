// Answers whose whole shape an instruction fixes: copies of the prompt, a repeated phrase, the
// counted composition, and wrappers (JSON, two responses, hyphen-joined sentences, brackets, bigrams)
// around an answer composed for the remaining instructions.
import { pySplit } from '../../../python/str';
import type { Shape } from './plan';

export function shaped(shape: Shape, body: () => string): string {
  switch (shape.kind) {
    case 'copy':
      return Array.from({ length: Math.max(shape.times, 1) }, () => shape.text).join('\n******\n');
    case 'repeat_prompt':
      return `${shape.prompt}\n${body()}`;
    case 'repeat_phrase':
      return repeatPhrase(shape.phrase, shape.times);
    case 'composition':
      return composition(shape.sentences, shape.words);
    case 'json':
      return JSON.stringify({ answer: body() });
    case 'two_responses':
      return `${body()}\n******\n${body()} Also worth noting.`;
    case 'hyphens':
      return body()
        .split(/(?<=[.!?])\s+/)
        .join('-');
    case 'square_brackets':
      return pySplit(body())
        .map((w) => `[${w}]`)
        .join(' ');
    case 'bigrams': {
      const words = pySplit(body());
      const pairs: string[] = [];
      for (let i = 0; i < words.length; i += 2) pairs.push(i + 1 < words.length ? `<<${words[i]} ${words[i + 1]}>>` : words[i]!);
      return pairs.join(' ');
    }
  }
}

/** The phrase once per line, each time with its middle word swapped for another. */
function repeatPhrase(phrase: string, times: number): string {
  const words = pySplit(phrase);
  const middle = Math.floor(words.length / 2);
  const swaps = ['bright', 'calm', 'gentle', 'quiet', 'vivid'];
  return Array.from({ length: Math.max(times, 1) }, (_, i) => words.map((w, j) => (j === middle ? swaps.filter((s) => s !== w)[i % 4] : w)).join(' ')).join('\n');
}

/** Three "***"-separated paragraphs of `sentences` sentences, each of `words` tokens (the period is one). */
function composition(sentences: number, words: number): string {
  const filler = ['alpha', 'bravo', 'delta', 'echo', 'golf', 'hotel', 'india', 'kilo', 'lima', 'mike'];
  const sentence = (k: number) => `${Array.from({ length: Math.max(words - 1, 1) }, (_, j) => filler[(j + k) % filler.length]).join(' ')}.`;
  const paragraph = (p: number) => Array.from({ length: sentences }, (_, k) => sentence(p + k)).join(' ');
  return [0, 1, 2].map(paragraph).join('\n***\n');
}
