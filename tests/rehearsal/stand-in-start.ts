// Waits for a planned stand-in process to say it is listening; its stdout so far (the banner), or the exit as an error.
import type { ResultPromise } from "execa";

export function untilListening(child: ResultPromise): Promise<string> {
  let banner = "";
  return new Promise<string>((resolve, reject) => {
    child.stdout!.on("data", (chunk: Buffer) => {
      banner += chunk.toString("utf8");
      if (banner.includes("listening on")) resolve(banner);
    });
    child.once("exit", () => reject(new Error(`stand-in exited early: ${banner}`)));
  });
}
