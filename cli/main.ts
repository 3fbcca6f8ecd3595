// The `openclaw-rl` command line: parses flags, loads the recipe, hands off to launchers/orchestrator,
// prints. Every typed error becomes one line per problem and exit status 2; no stack traces for bad input.
import { Command, CommanderError } from "commander";
import { OpenclawRlError, OpenclawRlErrorList } from "../contracts/errors.ts";
import { registerCommands } from "./commands/index.ts";

export const EXIT_BAD_INPUT = 2;

export function buildProgram(): Command {
  const program = new Command("openclaw-rl")
    .description("Online RL for your self-hosted agent model: capture, judge, train, serve.")
    .showHelpAfterError()
    .exitOverride();
  registerCommands(program);
  return program;
}

/** Runs the CLI and returns the exit code (bin/openclaw-rl.mjs sets process.exitCode). */
export async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
    return typeof process.exitCode === "number" ? process.exitCode : 0;
  } catch (error) {
    return reportError(error);
  }
}

export function reportError(error: unknown): number {
  if (error instanceof CommanderError) {
    return error.exitCode === 0 ? 0 : EXIT_BAD_INPUT;
  }
  if (error instanceof OpenclawRlErrorList) {
    for (const item of error.errors) process.stderr.write(`error: ${item.toLine()}\n`);
    return EXIT_BAD_INPUT;
  }
  if (error instanceof OpenclawRlError) {
    process.stderr.write(`error: ${error.toLine()}\n`);
    return EXIT_BAD_INPUT;
  }
  process.stderr.write(`internal error: ${(error as Error)?.stack ?? String(error)}\n`);
  return 1;
}
