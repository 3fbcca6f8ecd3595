// The paper's method comparison in rehearsal: for each method, homework persona and seed, a fresh
// `openclaw-rl start --method M` (CPU stand-ins) and a persona talking to it until the preference shows in the first
// reply of 3 sessions in a row (capped at 72); one table of sessions until then, mean ± sd over seeds.
// Flags (after `npm run bench -- sessions-until`): --methods=a,b --personas=a,b --seeds=0,1 --cap=72.
import type { Method } from "../../contracts/recipe.ts";
import { SESSIONS_UNTIL_CAP } from "../../orchestrator/evaluation/sessions-until.ts";
import { parsePersonaId } from "../../rehearsal/user/homework-personas.ts";
import { QUICK_SETTINGS, sessionsUntilRun, sessionsUntilTable, type RunOutcome } from "../support/sessions-until-run.ts";

function flag(name: string, fallback: string): string[] {
  const value = process.argv.find((argument) => argument.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
  return value.split(",").map((item) => item.trim()).filter(Boolean);
}

const methods = flag("methods", "binary,opd,combine,hybrid") as Method[];
const personas = flag("personas", "student").map(parsePersonaId);
const seeds = flag("seeds", "0,1").map(Number);
const cap = Number(flag("cap", String(SESSIONS_UNTIL_CAP))[0]);
if (seeds.some((seed) => !Number.isInteger(seed)) || !Number.isInteger(cap) || cap < 3) throw new Error("--seeds takes integers, --cap an integer of at least 3");

console.log(
  `Sessions until the first reply satisfies the persona in 3 consecutive sessions (capped at ${cap}; fewer is better), ` +
    `methods ${methods.join(", ")}, personas ${personas.join(", ")}, seeds ${seeds.join(", ")} (the stand-in policy's sampling seed), ` +
    `batch ${QUICK_SETTINGS.batchSize}, up to ${QUICK_SETTINGS.repliesPerSession} judged replies per session.\n` +
    "These are the CPU stand-ins' numbers (a policy that learns one choice among three reply styles, a keyword judge): they " +
    "show the measure and each method's plumbing, NOT the paper's results, which come from Qwen3-4B with LLM-played personas.\n",
);
const outcomes: RunOutcome[] = [];
for (const persona of personas) {
  for (const method of methods) {
    for (const seed of seeds) {
      const outcome = await sessionsUntilRun(method, persona, seed, { ...QUICK_SETTINGS, cap });
      outcomes.push(outcome);
      if ("refused" in outcome) {
        console.error(`${method} ${persona}: refused (${outcome.refused}); its other seeds are skipped`);
        break;
      }
      const shown = outcome.result.reached ? `${outcome.result.sessions}` : `not within ${cap}`;
      console.error(`${method} ${persona} seed ${seed}: ${shown} (${outcome.sessions.length} sessions, first replies ${outcome.sessions.map((session) => (session.firstReplySatisfied ? "y" : "n")).join("")}, ${outcome.seconds.toFixed(0)} s)`);
    }
  }
}
console.log(sessionsUntilTable(outcomes, cap));
