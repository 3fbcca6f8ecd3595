// `openclaw-rl demo --persona student|ta|teacher`: one of the reference's homework personas talks to the running
// rehearsal session after session and prints each session's first-reply verdict and the paper's sessions-until count.
import { sessionsUntilPreference, sessionsUntilSettled, SESSIONS_UNTIL_CAP, SESSIONS_UNTIL_STREAK } from "../../orchestrator/evaluation/sessions-until.ts";
import { HOMEWORK_PERSONAS, parsePersonaId } from "../../rehearsal/user/homework-personas.ts";
import { PersonaUser } from "../../rehearsal/user/persona-user.ts";
import type { ProxyChatOptions } from "../../rehearsal/user/proxy-chat.ts";

/** Plays sessions until the count is settled (the streak shows, or the cap is played); returns the count. */
export async function playPersona(personaName: string, chat: ProxyChatOptions & { policyUrl: string }, method: string): Promise<number> {
  const persona = HOMEWORK_PERSONAS[parsePersonaId(personaName)];
  process.stdout.write(
    `demo: the ${persona.id} persona (wants ${persona.preference}; the stand-in shows it as the ${persona.satisfiedBy.join(" or ")} style), ` +
      `method ${method}, until the first reply satisfies it in ${SESSIONS_UNTIL_STREAK} sessions in a row (capped at ${SESSIONS_UNTIL_CAP}); the model is a stand-in\n`,
  );
  const user = new PersonaUser({ ...chat, persona });
  const verdicts: boolean[] = [];
  while (!sessionsUntilSettled(verdicts)) {
    const session = await user.session();
    verdicts.push(session.firstReplySatisfied);
    process.stdout.write(`session ${String(session.index).padStart(2)}  weights v${session.weightVersion ?? "?"}  first reply ${session.firstReplyStyle ?? "?"}  ${session.firstReplySatisfied ? "satisfied" : "not satisfied"}\n`);
  }
  const result = sessionsUntilPreference(verdicts);
  process.stdout.write(
    result.reached
      ? `\nsessions until the first reply satisfies the ${persona.id} in ${SESSIONS_UNTIL_STREAK} sessions in a row: ${result.sessions} (the stand-in's number, not the paper's)\n`
      : `\nsessions until the first reply satisfies the ${persona.id} in ${SESSIONS_UNTIL_STREAK} sessions in a row: ${SESSIONS_UNTIL_CAP} (capped: not within ${SESSIONS_UNTIL_CAP} sessions)\n`,
  );
  return result.sessions;
}
