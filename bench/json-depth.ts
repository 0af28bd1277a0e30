// The JSON nesting check every JSON body passes before it is parsed (src/http/json-body.ts):
// its cost next to JSON.parse on ordinary guard bodies of 1 KB, 1 MB and 8 MB (mostly text, as
// agent traffic is), on a structure-heavy 1 MB body, and on hostile ones (5,000 levels deep, and
// 1 MB of escaped quotes). Run: `npx tsx bench/json-depth.ts`.
import { nestsDeeperThan } from '../src/infra/http/json-body.js';

const LIMIT = 128;
const ROUNDS = 5;

/** Median milliseconds of `run` over enough repetitions to last about 200 ms. */
function time(run: () => unknown): number {
  const start = performance.now();
  let reps = 0;
  while (performance.now() - start < 50) {
    run();
    reps += 1;
  }
  const medians: number[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    const begin = performance.now();
    for (let rep = 0; rep < reps; rep += 1) run();
    medians.push((performance.now() - begin) / reps);
  }
  return medians.sort((a, b) => a - b)[Math.floor(ROUNDS / 2)] ?? 0;
}

const prose = (chars: number) => 'The quick brown fox said "hi" to the lazy dog. '.repeat(Math.ceil(chars / 48)).slice(0, chars);
const guardBody = (chars: number) => JSON.stringify({ agent: 'billing', content: prose(chars), context: [{ role: 'user', content: 'hello' }] });
const structured = JSON.stringify(Array.from({ length: 12_000 }, (_, index) => ({ id: index, tags: ['a', 'b'], nested: { x: [1, 2, { y: index }] } })));

const bodies: Array<[string, string]> = [
  ['guard body, 1 KB', guardBody(1024)],
  ['guard body, 1 MB', guardBody(1_048_576)],
  ['guard body, 8 MB', guardBody(8 * 1_048_576)],
  ['structured, 1 MB', structured],
  ['5,000 levels deep', `{"x":${'['.repeat(5000)}${']'.repeat(5000)}}`],
  ['1 MB of escaped quotes', JSON.stringify({ content: '"'.repeat(500_000) })],
];

console.log(`\nJSON nesting check (limit ${LIMIT}) against JSON.parse, median ms per body`);
console.log('| body | bytes | depth check | JSON.parse | check / parse |');
console.log('|---|---|---|---|---|');
for (const [name, body] of bodies) {
  const check = time(() => nestsDeeperThan(body, LIMIT));
  const parse = time(() => JSON.parse(body));
  console.log(`| ${name} | ${body.length} | ${check.toFixed(4)} | ${parse.toFixed(4)} | ${((check / parse) * 100).toFixed(1)}% |`);
}
