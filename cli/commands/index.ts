// Registers every subcommand; each lives in its own file named after the command.
import type { Command } from "commander";
import { registerDoctorCommand } from "./doctor.ts";
import { registerOpenclawConfigCommand } from "./openclaw-config.ts";
import { registerPlanCommand } from "./plan.ts";

export function registerCommands(program: Command): void {
  void program;
  registerPlanCommand(program);
  registerDoctorCommand(program);
  registerOpenclawConfigCommand(program);
}
