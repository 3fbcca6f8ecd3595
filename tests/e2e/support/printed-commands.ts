// The `npx openclaw-rl …` commands a person is shown: read out of the README (fenced bash blocks, inline code spans)
// and out of start's banner, as they would be pasted; and a shell that runs them from this checkout.
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { execa } from "execa";

export const CLI_PREFIX = /^npx (?:--prefix \S+ )?openclaw-rl\b/;

/** Every `npx openclaw-rl …` command of a markdown text: lines of ```bash blocks (comments off, `a && b` split) and code spans. */
export function readmeCommands(markdown: string): string[] {
  const commands: string[] = [];
  for (const block of markdown.matchAll(/```bash\n([\s\S]*?)```/g)) {
    for (const line of block[1]!.split("\n")) {
      for (const part of line.replace(/\s+#.*$/, "").split("&&")) if (CLI_PREFIX.test(part.trim())) commands.push(part.trim());
    }
  }
  const prose = markdown.replace(/```[\s\S]*?```/g, "");
  for (const span of prose.matchAll(/`([^`\n]+)`/g)) if (CLI_PREFIX.test(span[1]!)) commands.push(span[1]!);
  return [...new Set(commands)];
}

/** The commands of start's banner: from `npx` to the end of the line, less a trailing "(or …)" aside. */
export function bannerCommands(banner: string): string[] {
  return banner
    .split("\n")
    .map((line) => /(npx (?:--prefix \S+ )?openclaw-rl .*)$/.exec(line)?.[1])
    .filter((command): command is string => command !== undefined)
    .map((command) => command.replace(/\s{2,}\(.*\)$/, "").trim());
}

/** The subcommand a printed command runs (`start`, `status`, …). */
export function subcommandOf(command: string): string {
  return command.replace(CLI_PREFIX, "").trim().split(/\s+/)[0] ?? "";
}

export interface PastedResult {
  exitCode: number;
  output: string;
}

/**
 * A shell as after the README's set-up: `npx openclaw-rl` runs this checkout's bin (as npx does inside the package
 * folder: the test checks that once against the real npx), any other `npx` package is "not found", HOME is a
 * scratch folder (so ~/.openclaw is written there), the working folder is the checkout.
 */
export class PasteShell {
  readonly home: string;
  private readonly shimFolder: string;

  constructor(readonly root: string) {
    const scratch = mkdtempSync(path.join(tmpdir(), "pasted-"));
    this.home = path.join(scratch, "home");
    this.shimFolder = path.join(scratch, "bin");
    mkdirSync(this.home);
    mkdirSync(this.shimFolder);
    const shim = path.join(this.shimFolder, "npx");
    writeFileSync(
      shim,
      [
        "#!/bin/sh",
        `if [ "$1" = "--prefix" ]; then [ "$2" = '${root}' ] || { echo "npx: --prefix $2 is not the openclaw-rl package" >&2; exit 127; }; shift 2; fi`,
        `[ "$1" = "openclaw-rl" ] || { echo "npx: $1: command not found" >&2; exit 127; }`,
        "shift",
        `exec '${process.execPath}' '${path.join(root, "bin", "openclaw-rl.mjs")}' "$@"`,
        "",
      ].join("\n"),
    );
    chmodSync(shim, 0o755);
  }

  environment(): Record<string, string> {
    return { PATH: `${this.shimFolder}:${process.env.PATH ?? ""}`, HOME: this.home };
  }

  /** Runs one pasted line in bash (so `~` and quoting are the shell's), to its end. */
  async run(line: string, timeoutMs = 120_000): Promise<PastedResult> {
    const result = await execa("bash", ["-c", line], { cwd: this.root, env: this.environment(), reject: false, all: true, timeout: timeoutMs, stdin: "ignore" });
    return { exitCode: result.exitCode ?? -1, output: String(result.all ?? "") };
  }

  /** Starts one pasted line that runs until stopped (`exec`: the signal reaches the CLI itself). */
  spawn(line: string) {
    return execa("bash", ["-c", `exec ${line}`], { cwd: this.root, env: this.environment(), reject: false, stdin: "ignore" });
  }
}

/** What no pasted command may print: the shell or the argument parser not knowing it. */
export const NOT_UNDERSTOOD = /command not found|unknown option|unknown command|too many arguments|missing required argument/i;
