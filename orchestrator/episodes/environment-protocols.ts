// Which client speaks to an environment server, by episodes.env_protocol: the reference's lease protocol (terminal
// router and pool, our built-in servers), its GUI pool's or its SWE pool's. One place, so `start` and evaluation agree.
import type { EnvironmentHttpOptions } from "./environment-http.ts";
import { EnvironmentClient } from "./environment-client.ts";
import type { EpisodeEnvironment } from "./episode-environment.ts";
import { GuiEnvironmentClient } from "./gui-environment-client.ts";
import { SweEnvironmentClient } from "./swe-environment-client.ts";

export type EnvironmentProtocol = "lease" | "gui" | "swe";

export function environmentClient(protocol: EnvironmentProtocol, url: string, options: EnvironmentHttpOptions = {}): EpisodeEnvironment {
  if (protocol === "gui") return new GuiEnvironmentClient(url, options);
  if (protocol === "swe") return new SweEnvironmentClient(url, options);
  return new EnvironmentClient(url, options);
}
