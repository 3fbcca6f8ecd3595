// Our built-in lease server (the terminal environment, as `serve.ts --kind terminal` runs it) answers every case of
// tests/fixtures/terminal-rl/lease-protocol-answers.json as the reference's router + pool do (0d034dd5), status and
// body, or as the fixture's `ours` says where our environment's text deliberately differs, with the reason.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEnvironmentServer, type RunningEnvironmentServer } from "../../environments/environment-server.ts";
import { fixture, noDifferences, runCases } from "./lease-protocol-cases.ts";

describe(`our built-in lease server answers each case of the reference's lease protocol (${fixture.commit})`, () => {
  let server: RunningEnvironmentServer;
  beforeAll(async () => {
    server = await startEnvironmentServer({ kind: "terminal", port: 0, slots: 2 });
  });
  afterAll(() => server?.close());

  it("status and body, route by route: success, unknown lease, bad body, a closed lease, before /reset", async () => {
    const found = await runCases({
      url: server.url,
      ours: true,
      taskMeta: { task_name: "terminal", task_path: "hello-file" },
      tool: "run_command",
      toolArguments: { command: "echo hi" },
      raisingArguments: { x: 1 },
    });
    expect(found).toEqual(noDifferences());
    expect(fixture.cases.length).toBeGreaterThan(40);
  });

  it("every deliberate difference says why", () => {
    for (const answerCase of fixture.cases.filter((each) => each.ours)) {
      expect(answerCase.ours!.why.length, answerCase.name).toBeGreaterThan(40);
      expect(answerCase.source.length, answerCase.name).toBeGreaterThan(0);
    }
  });
});
