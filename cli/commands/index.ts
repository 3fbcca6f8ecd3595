// Registers every subcommand; each lives in its own file named after the command.
import type { Command } from "commander";

export function registerCommands(program: Command): void {
  void program;
}
