// More math word problems for the tool-call environment, from templates with seeded random numbers, each with its
// integer answer computed here: `tsx environments/toolcall/math-task-generator.ts --count 200 --seed 7 > more.jsonl`.
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import type { MathTask } from "./math-task.ts";

type Draw = (low: number, high: number) => number;

const TEMPLATES: ((draw: Draw) => { question: string; answer: number })[] = [
  (draw) => {
    const [boxes, each] = [draw(3, 40), draw(6, 30)];
    const sold = draw(1, boxes * each - 1);
    return { question: `A shop has ${boxes} boxes of ${each} apples. It sells ${sold} apples. How many apples are left?`, answer: boxes * each - sold };
  },
  (draw) => {
    const [weekly, weeks] = [draw(5, 90), draw(4, 52)];
    const spent = draw(1, weekly * weeks - 1);
    return { question: `Mia saves ${weekly} dollars every week for ${weeks} weeks, then spends ${spent} dollars. How many dollars does she have left?`, answer: weekly * weeks - spent };
  },
  (draw) => {
    const [base, power, modulus] = [draw(2, 30), draw(10, 400), draw(7, 97)];
    return { question: `What is the remainder when ${base} to the power ${power} is divided by ${modulus}?`, answer: Number(BigInt(base) ** BigInt(power) % BigInt(modulus)) };
  },
  (draw) => {
    const [limit, first, second] = [draw(100, 5000), draw(2, 9), draw(10, 19)];
    const lcm = (first * second) / gcd(first, second);
    const answer = Math.floor(limit / first) + Math.floor(limit / second) - Math.floor(limit / lcm);
    return { question: `How many integers from 1 to ${limit} are divisible by ${first} or by ${second}?`, answer };
  },
  (draw) => {
    const [low, span] = [draw(1, 500), draw(10, 2000)];
    const high = low + span;
    return { question: `What is the sum of all integers from ${low} to ${high}?`, answer: ((low + high) * (span + 1)) / 2 };
  },
  (draw) => {
    const [speed, hours, slower, more] = [draw(40, 120), draw(2, 9), draw(20, 60), draw(1, 5)];
    return { question: `A train runs at ${speed} km per hour for ${hours} hours, then at ${slower} km per hour for ${more} hours. How many kilometres does it travel?`, answer: speed * hours + slower * more };
  },
];

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}

/** mulberry32: a small seeded generator, so a seed always gives the same task file. */
function drawFrom(seed: number): Draw {
  let state = seed >>> 0;
  return (low, high) => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    const unit = ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    return low + Math.floor(unit * (high - low + 1));
  };
}

export function generateMathTasks(count: number, seed: number): MathTask[] {
  const draw = drawFrom(seed);
  return Array.from({ length: count }, (_, index) => ({
    task_name: "toolcall-math",
    task_path: `generated-${seed}-${String(index + 1).padStart(4, "0")}`,
    ...TEMPLATES[index % TEMPLATES.length]!(draw),
  }));
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values } = parseArgs({ options: { count: { type: "string", default: "100" }, seed: { type: "string", default: "1" } } });
  const [count, seed] = [Number(values.count), Number(values.seed)];
  if (!Number.isInteger(count) || count < 1 || !Number.isInteger(seed)) {
    process.stderr.write("usage: math-task-generator.ts [--count N] [--seed S]\n");
    process.exit(1);
  }
  for (const task of generateMathTasks(count, seed)) process.stdout.write(`${JSON.stringify({ task_meta: task })}\n`);
}
