// The reference's three homework personas (openclaw-test: student, TA, teacher) as rehearsal users: what each
// wants, the stand-in reply style that shows it, and what each says to a reply. Our words; the reference's facts
// (file:line, commit) are in tests/fixtures/reference-personas/personas.json. No HTTP.
import { OpenclawRlError } from "../../contracts/errors.ts";
import { styleOfText, type ReplyStyle } from "../policy/reply-styles.ts";

export const PERSONA_IDS = ["student", "ta", "teacher"] as const;
export type PersonaId = (typeof PERSONA_IDS)[number];

export interface HomeworkProblem {
  question: string;
  answer: string;
}

export interface HomeworkPersona {
  id: PersonaId;
  /** What the persona wants from the agent's reply, as its reference script tells the user model. */
  preference: string;
  /**
   * The stand-in's reply styles (rehearsal/policy/reply-styles.ts) that satisfy it: the stand-in policy learns one
   * choice, its reply style, so each preference is the one style that comes closest to it.
   */
  satisfiedBy: readonly ReplyStyle["name"][];
  opener(problem: HomeworkProblem): string;
  /** What it says to a reply that does not satisfy it; the stand-in judge reads it as a rejection. */
  rejection: string;
  /** What it says to one that does; the stand-in judge reads it as approval. */
  acceptance: string;
}

/** Small word problems in the spirit of the reference's GSM8K set (ours, not GSM8K's). */
export const HOMEWORK_PROBLEMS: readonly HomeworkProblem[] = [
  { question: "A baker makes 24 muffins and sells three quarters of them. How many are left?", answer: "6" },
  { question: "Sam reads 12 pages a day for 5 days, then 20 pages on the sixth day. How many pages did he read?", answer: "80" },
  { question: "A bus holds 40 people. 3 buses are full and a fourth is half full. How many people are riding?", answer: "140" },
  { question: "Mia saves $15 a week. How many weeks until she can buy a $135 bike?", answer: "9" },
  { question: "A garden has 7 rows of 9 tomato plants, and 8 plants die. How many are left?", answer: "55" },
];

export const HOMEWORK_PERSONAS: Record<PersonaId, HomeworkPersona> = {
  student: {
    id: "student",
    preference: "homework answers with every step, written so that they do not look AI-written (no bold, no numbered lists, no AI phrasing)",
    satisfiedBy: ["plain"],
    opener: (problem) => `hey so my homework is this: ${problem.question} can you solve it for me? show all the steps, I need the whole working`,
    rejection: "That sounds like an AI, with the list and all. Be natural, please, and keep all the steps.",
    acceptance: "Thanks, that looks like something I would write.",
  },
  ta: {
    id: "ta",
    preference: "grading comments that are detailed and specific",
    satisfiedBy: ["bulleted"],
    opener: (problem) => `I'm grading a student's homework. The question was: ${problem.question} The correct answer is ${problem.answer}. The student answered ${Number(problem.answer) + 2}. Please write the grading comments.`,
    rejection: "Redo it: your comments are too short, make them more detailed and specific.",
    acceptance: "Thanks, those comments are detailed enough.",
  },
  teacher: {
    id: "teacher",
    preference: "comments on the student's strengths and weaknesses that are friendly and patient",
    satisfiedBy: ["plain"],
    opener: (problem) => `I'm reviewing a graded homework. The question was: ${problem.question} (answer ${problem.answer}); the student got it wrong and the TA marked it. Please write comments on the student's strengths and weaknesses.`,
    rejection: "Redo it, please: make it warmer and more patient with the student.",
    acceptance: "Thanks, that is kind and patient.",
  },
};

/** Whether a reply satisfies the persona: the reply's stand-in style is one it accepts. */
export function satisfiesPersona(persona: HomeworkPersona, replyText: string): boolean {
  const style = styleOfText(replyText);
  return style !== null && persona.satisfiedBy.includes(style);
}

export function parsePersonaId(value: string): PersonaId {
  const id = value.trim().toLowerCase();
  if ((PERSONA_IDS as readonly string[]).includes(id)) return id as PersonaId;
  throw new OpenclawRlError("BAD_REQUEST", `unknown persona "${value}"`, { hint: `use one of ${PERSONA_IDS.join(", ")}` });
}
