// The three homework personas against the reference's scripts they mirror (tests/fixtures/reference-personas, ffdebf1)
// and against the real stand-in judge's reading of what they say.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { hintOf, rejectedStyleShare, verdictOf } from "../../../rehearsal/judge/cues.ts";
import { HOMEWORK_PERSONAS, HOMEWORK_PROBLEMS, PERSONA_IDS, parsePersonaId, satisfiesPersona } from "../../../rehearsal/user/homework-personas.ts";
import { REPLY_STYLES } from "../../../rehearsal/policy/reply-styles.ts";
import { blobId } from "../../support/reference-checkout.ts";

interface LineFact {
  line: number;
  contains: string;
}
interface Fixture {
  commit: string;
  measure: { reference_counts_it: boolean; first_reply_recorded: Array<LineFact & { file: string }> };
  files: Record<string, string>;
  personas: Array<{ id: string; file: string; preference: LineFact; judging_rule: LineFact[]; session_loop: LineFact; done_sentinel: LineFact; standin: { satisfied_by: string[] } }>;
}

const fixture = JSON.parse(readFileSync(path.join(import.meta.dirname, "..", "..", "fixtures", "reference-personas", "personas.json"), "utf8")) as Fixture;

describe("homework personas", () => {
  it("are the fixture's three, each satisfied by the stand-in style the fixture names", () => {
    expect(fixture.personas.map((persona) => persona.id)).toEqual([...PERSONA_IDS]);
    for (const entry of fixture.personas) expect([...HOMEWORK_PERSONAS[parsePersonaId(entry.id)].satisfiedBy]).toEqual(entry.standin.satisfied_by);
  });

  it("judge each stand-in style's reply by that style alone", () => {
    for (const persona of Object.values(HOMEWORK_PERSONAS)) {
      for (const style of REPLY_STYLES) {
        const text = `<think>\nok\n</think>\n\n${style.render("the muffins", "18 sold, 6 left.")}`;
        expect(satisfiesPersona(persona, text), `${persona.id} on ${style.name}`).toBe(persona.satisfiedBy.includes(style.name));
      }
      expect(satisfiesPersona(persona, "I cannot tell which style this is.")).toBe(false);
    }
  });

  it("say what the stand-in judge reads as a rejection and an approval; only the student's carries the natural-voice hint", () => {
    for (const persona of Object.values(HOMEWORK_PERSONAS)) {
      expect(verdictOf(persona.rejection, "user").verdict, persona.id).toBe(-1);
      expect(verdictOf(persona.acceptance, "user").verdict, persona.id).toBe(1);
      const hint = hintOf(persona.rejection, "user");
      expect(hint, persona.id).not.toBeNull();
      // the stand-in teacher turns against the rejected (ai) style under the student's hint only; the others leave it at a third
      expect(rejectedStyleShare(`[user's hint / instruction]\n${hint}`) < 1 / 3, persona.id).toBe(persona.id === "student");
    }
  });

  it("open with a problem of their own, and refuse an unknown persona by name", () => {
    for (const persona of Object.values(HOMEWORK_PERSONAS)) expect(persona.opener(HOMEWORK_PROBLEMS[0]!)).toContain(HOMEWORK_PROBLEMS[0]!.question);
    expect(parsePersonaId(" TA ")).toBe("ta");
    expect(() => parsePersonaId("parent")).toThrow(/unknown persona "parent"/);
  });

  it("mirror the reference's scripts at ffdebf1 line by line (OPENCLAW_RL_REFERENCE_FFDEBF1: a checkout of it)", () => {
    const root = process.env.OPENCLAW_RL_REFERENCE_FFDEBF1;
    const missing = !root ? "OPENCLAW_RL_REFERENCE_FFDEBF1 is not set" : !existsSync(path.join(root, "openclaw-test")) ? `${root} has no openclaw-test/` : null;
    if (missing !== null) {
      if (process.env.OPENCLAW_RL_REFERENCE_FFDEBF1_REQUIRED === "1") throw new Error(`the reference's persona scripts cannot be read: ${missing}`);
      console.warn(`the fixture's lines were not re-read: ${missing}`);
      return;
    }
    for (const [file, blob] of Object.entries(fixture.files)) expect(blobId(path.join(root!, file)), file).toBe(blob);
    const lineOf = (file: string, fact: LineFact) => readFileSync(path.join(root!, file), "utf8").split("\n")[fact.line - 1] ?? "";
    for (const fact of fixture.measure.first_reply_recorded) expect(lineOf(fact.file, fact), `${fact.file}:${fact.line}`).toContain(fact.contains);
    for (const persona of fixture.personas) {
      for (const fact of [persona.preference, ...persona.judging_rule, persona.session_loop, persona.done_sentinel]) {
        expect(lineOf(persona.file, fact), `${persona.file}:${fact.line}`).toContain(fact.contains);
      }
    }
    // the scripts count nothing: no "consecutive" and no 72 anywhere in them
    for (const file of Object.keys(fixture.files)) expect(readFileSync(path.join(root!, file), "utf8")).not.toMatch(/consecutive|\b72\b/i);
    expect(fixture.measure.reference_counts_it).toBe(false);
  });
});
