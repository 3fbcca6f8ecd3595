// The arguments of an XML-style call (qwen3_coder, glm45) while it is open: `{"k": v` once its first parameter has
// closed, `, "k": v` for each next one, values converted as the whole parse converts them; the closing `}` (or `{}`
// for a call without parameters) comes from the whole parse. Ignores the markup: the format finds the parameters.
import { dumpPythonJson, type PythonJson } from "../../python-json.ts";

export interface ClosedParameter {
  /** Where the parameter starts in the unit (the same parameter at the same place each time the unit grows). */
  at: number;
  key: string;
  value: () => PythonJson;
}

export class ParameterPrefix {
  /** `"k": v` of each parameter converted so far, by its offset: a unit is read again each time it grows. */
  private readonly members = new Map<number, string>();

  /** The arguments text certain so far, from the closed parameters in order. */
  text(parameters: Iterable<ClosedParameter>): string {
    const keys = new Set<string>();
    let text = "";
    for (const parameter of parameters) {
      // a repeated key: Python keeps its first position and its last value, so what follows is not certain yet
      if (keys.has(parameter.key)) break;
      keys.add(parameter.key);
      let member = this.members.get(parameter.at);
      if (member === undefined) {
        member = `${dumpPythonJson(parameter.key)}: ${dumpPythonJson(parameter.value())}`;
        this.members.set(parameter.at, member);
      }
      text += (text.length === 0 ? "{" : ", ") + member;
    }
    return text;
  }
}
