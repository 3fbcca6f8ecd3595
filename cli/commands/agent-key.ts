// How a coding agent gets the proxy's key: the key itself (--with-key), or read from $<proxy.api_key_env> each time the
// agent starts, with a placeholder when that is unset, which a proxy started without a key (the loopback default) takes.
import { OpenclawRlError } from "../../contracts/errors.ts";

export const NO_KEY_PLACEHOLDER = "openclaw-rl-no-key";

const SHELL_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** `${VAR:-openclaw-rl-no-key}`: the variable's value in the agent's shell, else the placeholder. */
export function keyFromShell(variable: string): string {
  if (!SHELL_NAME.test(variable)) {
    throw new OpenclawRlError("BAD_REQUEST", `proxy.api_key_env ${JSON.stringify(variable)} is not a shell variable name, so an agent cannot read the key from it`, {
      path: "proxy.api_key_env",
      hint: "name it with letters, digits and _ (the default is OPENCLAW_RL_API_KEY), or put the key itself in the config with --with-key",
    });
  }
  return `\${${variable}:-${NO_KEY_PLACEHOLDER}}`;
}

/** A /bin/sh command that prints that key, for agents that run a command to get their key. */
export function keyCommand(variable: string): string {
  return `printf '%s' "${keyFromShell(variable)}"`;
}
