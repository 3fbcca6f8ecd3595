// How a sandboxed command is isolated on this machine: the launch prefix (a network namespace, a PID namespace that
// dies with its first process, and an unprivileged user for the process limit), found once by trying each way in
// turn. Limits, folders and output are sandbox.ts's; this file only answers "which prefix works here, or why none".
import { execa } from "execa";
import { OpenclawRlError } from "../contracts/errors.ts";

/** The user a root-run sandbox drops to: the kernel exempts root from RLIMIT_NPROC, so a fork bomb needs another uid. */
export const SANDBOX_USER = { uid: 65534, gid: 65534 } as const;

export interface Isolation {
  /** How this isolation is described in errors and docs. */
  name: string;
  /** Put before `prlimit … -- command`. */
  prefix: string[];
  /** The owner the working folder must have, when the command runs as another user; null when it runs as us. */
  folderOwner: { uid: number; gid: number } | null;
}

const DROP_TO_NOBODY = ["setpriv", `--reuid=${SANDBOX_USER.uid}`, `--regid=${SANDBOX_USER.gid}`, "--clear-groups", "--"];
/** A new PID namespace whose processes all die when unshare or its first child dies (a timeout, a close). */
const PID_NAMESPACE = ["--pid", "--fork", "--kill-child"];

/** The ways to try, best first: a user namespace of its own makes the process limit count only this sandbox. */
function candidates(isRoot: boolean): Isolation[] {
  if (isRoot) {
    return [
      { name: "nobody in its own user and network namespaces", prefix: [...DROP_TO_NOBODY, "unshare", "-rn", ...PID_NAMESPACE, "--"], folderOwner: SANDBOX_USER },
      { name: "a network namespace, as nobody", prefix: ["unshare", "-n", ...PID_NAMESPACE, "--", ...DROP_TO_NOBODY], folderOwner: SANDBOX_USER },
    ];
  }
  return [
    { name: "its own user and network namespaces", prefix: ["unshare", "-rn", ...PID_NAMESPACE, "--"], folderOwner: null },
    { name: "a network namespace", prefix: ["unshare", "-n", ...PID_NAMESPACE, "--"], folderOwner: null },
  ];
}

let found: Promise<Isolation> | null = null;

/** The first way that runs `true` here (found once per process), or a typed error with each way's reason. */
export function findIsolation(): Promise<Isolation> {
  found ??= probe().catch((error: unknown) => {
    found = null;
    throw error;
  });
  return found;
}

async function probe(): Promise<Isolation> {
  const reasons: string[] = [];
  for (const isolation of candidates(process.getuid?.() === 0)) {
    const result = await execa(isolation.prefix[0]!, [...isolation.prefix.slice(1), "true"], { reject: false, timeout: 10_000, stdin: "ignore" });
    if (result.exitCode === 0) return isolation;
    const reason = String(result.stderr || result.shortMessage || "failed").trim().split("\n")[0];
    reasons.push(`${isolation.name}: ${reason}`);
  }
  throw new OpenclawRlError("ENVIRONMENT_ERROR", `no way to run a command without network here (${reasons.join("; ")})`, {
    path: "sandbox",
    hint: "the sandbox needs unshare and user namespaces (sysctl kernel.unprivileged_userns_clone=1, user.max_user_namespaces > 0), or root with setpriv",
  });
}
