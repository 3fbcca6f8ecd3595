// A long-lived Python script spoken to in JSON lines (one request per stdin line, one answer per stdout line, in
// order; tests/support/json_lines.py's loop), optionally saying a hello line first (the versions it loaded). Ignores
// stderr except to report a crash.
import { execa, type ResultPromise } from "execa";

export class PythonLines<Answer> {
  private readonly child: ResultPromise<{ stdin: "pipe"; stdout: "pipe"; stderr: "pipe"; buffer: false }>;
  private readonly waiting: Array<{ resolve: (answer: Answer) => void; reject: (error: Error) => void }> = [];
  private pending = "";
  private stderr = "";
  private helloWaiter: { resolve: (hello: Record<string, string>) => void; reject: (error: Error) => void } | null = null;
  /** The versions the script printed first. */
  readonly hello: Promise<Record<string, string>>;

  constructor(
    private readonly python: string,
    private readonly script: string,
    options: { hello: boolean } = { hello: true },
  ) {
    this.hello = options.hello ? new Promise((resolve, reject) => (this.helloWaiter = { resolve, reject })) : Promise.resolve({});
    this.hello.catch(() => undefined);
    this.child = execa(python, [script], { stdin: "pipe", stdout: "pipe", stderr: "pipe", buffer: false, env: { PYTHONIOENCODING: "utf-8", HF_HUB_OFFLINE: "1" } });
    this.child.stdout.setEncoding("utf8");
    this.child.stdout.on("data", (chunk: string) => this.take(chunk));
    this.child.stderr.on("data", (chunk: Buffer) => (this.stderr += chunk.toString()));
    this.child.catch(() => undefined);
    this.child.on("exit", (code) => {
      const error = new Error(`${python} ${script} exited with ${code}: ${this.stderr.slice(-4000)}`);
      this.helloWaiter?.reject(error);
      for (const waiter of this.waiting.splice(0)) waiter.reject(error);
    });
  }

  askAll(requests: readonly unknown[]): Promise<Answer[]> {
    return Promise.all(requests.map((request) => this.ask(request)));
  }

  ask(request: unknown): Promise<Answer> {
    return new Promise((resolve, reject) => {
      if (this.child.exitCode !== null) {
        reject(new Error(`${this.python} ${this.script} exited: ${this.stderr.slice(-4000)}`));
        return;
      }
      this.waiting.push({ resolve, reject });
      this.child.stdin.write(JSON.stringify(request) + "\n");
    });
  }

  async close(): Promise<void> {
    this.child.stdin.end();
    await this.child.catch(() => undefined);
    if (this.waiting.length > 0) throw new Error(`${this.python} ${this.script} left ${this.waiting.length} requests unanswered: ${this.stderr.slice(-4000)}`);
  }

  private take(chunk: string): void {
    this.pending += chunk;
    for (let end = this.pending.indexOf("\n"); end >= 0; end = this.pending.indexOf("\n")) {
      const line = this.pending.slice(0, end);
      this.pending = this.pending.slice(end + 1);
      if (this.helloWaiter) {
        this.helloWaiter.resolve(JSON.parse(line) as Record<string, string>);
        this.helloWaiter = null;
      } else this.waiting.shift()?.resolve(JSON.parse(line) as Answer);
    }
  }
}
