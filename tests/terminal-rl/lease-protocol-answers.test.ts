// The fixture tests/fixtures/terminal-rl/lease-protocol-answers.json is what the reference's own router + pool answer
// (terminal-rl/router_server.py in front of terminal-rl/remote/pool_server.py at 0d034dd5, reference-servers.ts): every
// case sent to them. Needs OPENCLAW_RL_REFERENCE (`npm run test:reference`); skipped without it, saying why.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fixture, noDifferences, runCases } from "../environments/lease-protocol-cases.ts";
import { referenceCheckout } from "../support/reference-checkout.ts";
import { startReferenceServers, type ReferenceServers } from "./reference-servers.ts";

const checkout = referenceCheckout("terminal-rl/router_server.py");
const root = "root" in checkout ? checkout.root : "";

describe.skipIf(!root)(`the fixture (${fixture.commit}) is what the reference's router + pool answer (run from OPENCLAW_RL_REFERENCE)`, () => {
  let theirs: ReferenceServers;
  beforeAll(async () => {
    theirs = await startReferenceServers(root, { maxTasks: 4, maxRunsPerTask: 2 });
  });
  afterAll(() => theirs?.close());

  it("every case, as the fixture says", async () => {
    const found = await runCases({
      url: theirs.url,
      ours: false,
      taskMeta: { task_name: "hello-file", task_path: "hello-file", instruction: "Say hi." },
      tool: "shell_exec",
      toolArguments: { id: "s1", command: "echo hi" },
      raisingArguments: { x: 1 },
    });
    expect(found).toEqual(noDifferences());
  });
});
