// The stand-in policy's learnable part: a softmax over reply styles (one logit per style), sampled with a seeded
// generator, loaded from the JSON file the stand-in trainer writes at each weight update. No text, no HTTP.
import { readFile } from "node:fs/promises";
import { z } from "zod";
import { REPLY_STYLES, logSoftmax } from "./reply-styles.ts";
import { APPROACHES } from "./agent-approach.ts";

export const POLICY_FILE_FORMAT = "openclaw-rl-standin-policy/1";

export const policyFileSchema = z
  .object({
    format: z.literal(POLICY_FILE_FORMAT),
    styles: z.array(z.string()),
    logits: z.array(z.number().finite()),
    /** The agent approach's logits (tool, memory): agent-approach.ts. Absent in files written before it. */
    approach_logits: z.array(z.number().finite()).length(2).optional(),
  })
  .refine((file) => file.styles.length === file.logits.length, { message: "styles and logits differ in length" })
  .refine((file) => file.styles.join() === REPLY_STYLES.map((style) => style.name).join(), { message: `styles must be ${REPLY_STYLES.map((style) => style.name).join(", ")}` });
export type PolicyFile = z.infer<typeof policyFileSchema>;

/** mulberry32: small, seedable, good enough for choosing styles. */
export function seededRandom(seed: number): () => number {
  let state = (Math.imul(seed ^ 0x5bd1e995, 0x9e3779b1) + 0x7f4a7c15) >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  for (let warm = 0; warm < 4; warm += 1) next();
  return next;
}

const INITIAL_APPROACH_LOGITS = [-0.7, 0.7];

export class StylePolicy {
  private logits: number[];
  private readonly random: () => number;
  updates = 0;

  /** The agent approach (tool, memory); it starts leaning to memory (P(tool) = 0.2), so that learning to use the tool shows. */
  private approachLogits: number[];

  constructor(options: { seed: number; logits?: number[]; approachLogits?: number[] }) {
    this.logits = options.logits ? [...options.logits] : REPLY_STYLES.map(() => 0);
    this.approachLogits = options.approachLogits ? [...options.approachLogits] : INITIAL_APPROACH_LOGITS;
    this.random = seededRandom(options.seed);
  }

  logprobs(): number[] {
    return logSoftmax(this.logits);
  }

  approachLogprobs(): number[] {
    return logSoftmax(this.approachLogits);
  }

  /** An approach index (APPROACHES order): sampled, or the most likely one when greedy. */
  chooseApproach(greedy: boolean): number {
    return this.draw(this.approachLogprobs().map(Math.exp), greedy);
  }

  probabilities(): number[] {
    return this.logprobs().map(Math.exp);
  }

  /** A style index: sampled, or the most likely one when greedy. */
  choose(greedy: boolean): number {
    return this.draw(this.probabilities(), greedy);
  }

  private draw(probabilities: number[], greedy: boolean): number {
    if (greedy) return probabilities.indexOf(Math.max(...probabilities));
    let draw = this.random();
    for (const [index, probability] of probabilities.entries()) {
      draw -= probability;
      if (draw < 0) return index;
    }
    return probabilities.length - 1;
  }

  async load(file: string): Promise<void> {
    this.restore(JSON.parse(await readFile(file, "utf8")), file);
  }

  /** The weights as a policy file (what load reads). */
  file(): PolicyFile {
    return { format: POLICY_FILE_FORMAT, styles: REPLY_STYLES.map((style) => style.name), logits: [...this.logits], approach_logits: [...this.approachLogits] };
  }

  /** Takes weights in the policy file's shape; `source` names where they came from in the error. */
  restore(weights: unknown, source = "the weights"): void {
    const parsed = policyFileSchema.safeParse(weights);
    if (!parsed.success) throw new Error(`${source} is not a stand-in policy file: ${parsed.error.issues[0]?.message}`);
    this.logits = [...parsed.data.logits];
    if (parsed.data.approach_logits) this.approachLogits = [...parsed.data.approach_logits];
    this.updates += 1;
  }

  describe(): Record<string, unknown> {
    const probabilities = this.probabilities();
    return {
      format: POLICY_FILE_FORMAT,
      styles: REPLY_STYLES.map((style) => style.name),
      logits: [...this.logits],
      probabilities: Object.fromEntries(REPLY_STYLES.map((style, index) => [style.name, probabilities[index]])),
      approach_logits: [...this.approachLogits],
      approach_probabilities: Object.fromEntries(APPROACHES.map((approach, index) => [approach.name, Math.exp(this.approachLogprobs()[index]!)])),
      updates: this.updates,
    };
  }
}
