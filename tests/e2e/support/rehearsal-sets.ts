// The --set keys every rehearsal `start` in the e2e tests needs: its run folder and four free loopback ports
// (proxy, admin, the stand-in policy and judge), returned with the ports the test then talks to.
import { freePort } from "../../support/loopback.ts";

export async function rehearsalSets(runDir: string): Promise<{ sets: Record<string, string | number>; proxyPort: number; policyPort: number }> {
  const [proxyPort, adminPort, policyPort, judgePort] = [await freePort(), await freePort(), await freePort(), await freePort()];
  const sets = { "records.dir": runDir, "proxy.port": proxyPort, "proxy.admin_port": adminPort, "engine.rehearsal.policy_port": policyPort, "engine.rehearsal.judge_port": judgePort };
  return { sets, proxyPort, policyPort };
}
