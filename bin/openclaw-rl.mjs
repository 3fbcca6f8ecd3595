#!/usr/bin/env node
// Entry point: loads the TypeScript CLI through tsx's loader (no build step to forget).
import { register } from "tsx/esm/api";

register();
const { main } = await import("../cli/main.ts");
process.exitCode = await main(process.argv);
