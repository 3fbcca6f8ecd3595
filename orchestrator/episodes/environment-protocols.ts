// Which client speaks to an environment server, by episodes.env_protocol: the reference's lease protocol (terminal
// router and pool, our built-in servers) or its GUI pool's. One place, so `start` and evaluation agree.
import type { EnvironmentHttpOptions } from "./environment-http.ts";
import { EnvironmentClient } from "./environment-client.ts";
import type { EpisodeEnvironment } from "./episode-environment.ts";
import { GuiEnvironmentClient } from "./gui-environment-client.ts";

export type EnvironmentProtocol = "lease" | "gui";

export function environmentClient(protocol: EnvironmentProtocol, url: string, options: EnvironmentHttpOptions = {}): EpisodeEnvironment {
  return protocol === "gui" ? new GuiEnvironmentClient(url, options) : new EnvironmentClient(url, options);
}
