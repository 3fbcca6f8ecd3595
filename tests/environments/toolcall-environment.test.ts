// The tool-call environment served for real (startEnvironmentServer, the sandbox, python) and driven with the
// project's EnvironmentClient: a right answer scores 1 and a wrong one 0, python's crashes, timeouts and bad arguments
// are observations, tasks are found by task_path, the shipped task file is whole, and answers are read numerically.
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startEnvironmentServer, type RunningEnvironmentServer } from "../../environments/environment-server.ts";
import { TaskCatalogue } from "../../environments/task-catalogue.ts";
import { mathTaskSchema, normaliseAnswer } from "../../environments/toolcall/math-task.ts";
import { generateMathTasks } from "../../environments/toolcall/math-task-generator.ts";
import { TOOLCALL_TASKS, WORD_PROBLEMS } from "../../environments/toolcall/toolcall-environment.ts";
import { EnvironmentClient } from "../../orchestrator/episodes/environment-client.ts";

const TASK = { task_name: "toolcall-math", task_path: "math-001", question: "A baker makes 12 trays of 24 cookies and sells 197. How many are left?", answer: 91 };
let server: RunningEnvironmentServer | null = null;

afterEach(async () => {
  await server?.close();
  server = null;
});

async function episode(taskMeta: Record<string, unknown> = TASK): Promise<{ client: EnvironmentClient; lease: string; userMessage: string; toolSchemas: unknown[] }> {
  server ??= await startEnvironmentServer({ kind: "toolcall", port: 0, slots: 4, sandbox: { wallTimeoutMs: 2000 } });
  const client = new EnvironmentClient(server.url);
  const lease = await client.allocate(`toolcall-math:${String(taskMeta.task_path)}`, `${String(taskMeta.task_path)}:uid:0:${Math.random()}`);
  return { client, lease, ...(await client.reset(lease, taskMeta)) };
}

describe("the tool-call environment", () => {
  it("scores 1 when the episode computes the answer with python and submits it", async () => {
    const { client, lease, userMessage, toolSchemas } = await episode();
    expect(userMessage).toContain(TASK.question);
    expect(toolSchemas.map((tool) => (tool as { function: { name: string } }).function.name)).toEqual(["python", "submit_answer"]);
    expect(toolSchemas[0]).toMatchObject({ type: "function", function: { parameters: { type: "object", required: ["code"] } } });
    expect(await client.execTool(lease, { name: "python", arguments: { code: "print(12 * 24 - 197)" } })).toBe("91");
    expect(await client.execTool(lease, { name: "submit_answer", arguments: { answer: "91" } })).toBe("answer submitted: 91");
    expect(await client.execTool(lease, { name: "submit_answer", arguments: { answer: 90 } })).toMatch(/^error: an answer was already submitted \(91\)/);
    expect(await client.evaluate(lease)).toBe(1);
    await client.close(lease);
  });

  it("scores 0 for a wrong answer and for no answer", async () => {
    const wrong = await episode();
    await wrong.client.execTool(wrong.lease, { name: "submit_answer", arguments: { answer: 92 } });
    expect(await wrong.client.evaluate(wrong.lease)).toBe(0);
    const silent = await episode();
    expect(await silent.client.evaluate(silent.lease)).toBe(0);
  });

  it("gives python's crash, a timeout, bad arguments and an unknown tool back as observations", async () => {
    const { client, lease } = await episode();
    const crash = await client.execTool(lease, { name: "python", arguments: { code: "print('before')\nraise ValueError('boom')" } });
    expect(crash).toMatch(/^before\nstderr:\nTraceback[\s\S]*ValueError: boom\nerror: exit code 1$/);
    expect(await client.execTool(lease, { name: "python", arguments: { code: "while True: pass" } })).toContain("error: timed out after 2 s and was killed");
    expect(await client.execTool(lease, { name: "python", arguments: {} })).toMatch(/^error: python: argument code: /);
    // arguments as JSON text are refused as the reference's pool refuses them (pool_server.py:509-513@0d034dd5): the episode driver parses them first
    const asText = "{code: print(1)" as unknown as Record<string, unknown>;
    await expect(client.execTool(lease, { name: "python", arguments: asText })).rejects.toThrow(/\/exec_tool answered 400, ok false: tool_call\.arguments must be a dict/);
    expect(await client.execTool(lease, { name: "shell", arguments: {} })).toBe("error: no tool named shell; the tools are python, submit_answer");
    const network = await client.execTool(lease, { name: "python", arguments: { code: "import socket\nsocket.create_connection(('1.1.1.1', 53), timeout=2)" } });
    expect(network).toMatch(/OSError|Network is unreachable/);
    expect(await client.execTool(lease, { name: "submit_answer", arguments: { answer: "91" } })).toBe("answer submitted: 91");
    expect(await client.evaluate(lease)).toBe(1);
  });

  it("finds a shipped task by its task_path alone, and refuses a task it cannot read with 500, as the reference's pool answers a task it cannot start", async () => {
    const { userMessage } = await episode({ task_name: "toolcall-arithmetic", task_path: "arith-02" });
    expect(userMessage).toContain("What is 725 * 15?");
    const response = await fetch(`${server!.url}/reset`, {
      method: "POST",
      body: JSON.stringify({ lease_id: await new EnvironmentClient(server!.url).allocate("x:y", "r-x"), task_meta: { task_name: "toolcall-math", task_path: "nope" } }),
    });
    expect(response.status).toBe(500);
    expect(await response.json()).toMatchObject({ ok: false, error: expect.stringMatching(/^task_meta\.question: .*task_path names no task/) });
  });

  it("removes the episode's sandbox folder when the lease closes", async () => {
    const { client, lease } = await episode();
    const folder = await client.execTool(lease, { name: "python", arguments: { code: "import os; print(os.getcwd())" } });
    expect(folder.startsWith(`${tmpdir()}/openclaw-sandbox-`)).toBe(true);
    expect(existsSync(folder)).toBe(true);
    await client.close(lease);
    expect(existsSync(folder)).toBe(false);
  });

  it("ships word problems with integer answers, one task per path", async () => {
    const catalogue = await TaskCatalogue.read(WORD_PROBLEMS, mathTaskSchema);
    expect(catalogue.tasks.length).toBeGreaterThanOrEqual(30);
    expect(new Set(catalogue.tasks.map((task) => task.task_path)).size).toBe(catalogue.tasks.length);
    for (const task of catalogue.tasks) {
      expect(task.task_name).toBe("toolcall-math");
      expect(Number.isInteger(task.answer), task.task_path).toBe(true);
    }
  });

  it("ships held-out tasks (eval's default on this environment) whose answers are right and which are not training tasks", async () => {
    const heldOut = await TaskCatalogue.read(path.join(path.dirname(TOOLCALL_TASKS), "held-out.jsonl"), mathTaskSchema);
    const training = new Set((await TaskCatalogue.read(TOOLCALL_TASKS, mathTaskSchema)).tasks.map((task) => `${task.task_name}:${task.task_path}`));
    expect(heldOut.tasks).toHaveLength(6);
    for (const task of heldOut.tasks) {
      const [, a, operator, b] = /^What is (\d+) ([+*]) (\d+)\?$/.exec(task.question) ?? [];
      expect(task.answer, task.task_path).toBe(operator === "+" ? Number(a) + Number(b) : Number(a) * Number(b));
      expect(training.has(`${task.task_name}:${task.task_path}`), task.task_path).toBe(false);
    }
  });

  it("ships default tasks of sums and products whose answers are right", async () => {
    const catalogue = await TaskCatalogue.read(TOOLCALL_TASKS, mathTaskSchema);
    const operators = new Set<string>();
    for (const task of catalogue.tasks) {
      const [, a, operator, b] = /^What is (\d+) ([+*]) (\d+)\?$/.exec(task.question) ?? [];
      expect(operator, task.question).toBeDefined();
      operators.add(operator!);
      expect(task.answer, task.task_path).toBe(operator === "+" ? Number(a) + Number(b) : Number(a) * Number(b));
    }
    expect([...operators].sort()).toEqual(["*", "+"]);
    expect(new Set(catalogue.tasks.map((task) => task.task_path)).size).toBe(catalogue.tasks.length);
  });

  it("generates more tasks of the same form, the same for a seed, with positive integer answers", async () => {
    const tasks = generateMathTasks(60, 7);
    expect(generateMathTasks(60, 7)).toEqual(tasks);
    expect(generateMathTasks(60, 8)).not.toEqual(tasks);
    expect(new Set(tasks.map((task) => task.task_path)).size).toBe(60);
    for (const task of tasks) {
      expect(mathTaskSchema.parse(task)).toEqual(task);
      expect(Number.isInteger(task.answer) && (task.answer as number) > 0, task.question).toBe(true);
    }
    const sum = tasks.find((task) => task.question.startsWith("What is the sum of all integers"))!;
    const [low, high] = sum.question.match(/\d+/g)!.map(Number);
    const { client, lease } = await episode(sum);
    const printed = await client.execTool(lease, { name: "python", arguments: { code: `print(sum(range(${low}, ${high} + 1)))` } });
    await client.execTool(lease, { name: "submit_answer", arguments: { answer: printed } });
    expect(await client.evaluate(lease)).toBe(1);
  });

  it("reads answers numerically", () => {
    expect(normaliseAnswer(" 1,234 ")).toBe(1234);
    expect(normaliseAnswer("\\boxed{42}")).toBe(42);
    expect(normaliseAnswer("42.0")).toBe(42);
    expect(normaliseAnswer("$17")).toBe(17);
    expect(normaliseAnswer("42 apples")).toBe("42 apples");
    expect(normaliseAnswer("")).toBe("");
  });
});
