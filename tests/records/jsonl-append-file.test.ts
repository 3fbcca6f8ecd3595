import { beforeEach, describe, expect, it, vi } from "vitest";

// fs/promises with handles whose first write fails (a disk error), to see the file opened again afterwards
const opened: { writes: string[]; closed: boolean }[] = [];
let failNextWrite = false;
vi.mock("node:fs/promises", async (importOriginal) => {
  const actual = await importOriginal<typeof import("node:fs/promises")>();
  return {
    ...actual,
    mkdir: async () => undefined,
    open: async () => {
      const handle = { writes: [] as string[], closed: false };
      opened.push(handle);
      return {
        write: async (text: string) => {
          if (failNextWrite) {
            failNextWrite = false;
            throw new Error("EIO: i/o error, write");
          }
          handle.writes.push(text);
        },
        sync: async () => undefined,
        chmod: async () => undefined,
        close: async () => {
          handle.closed = true;
        },
      };
    },
  };
});

const { JsonlAppendFile } = await import("../../orchestrator/records/jsonl-append-file.ts");

describe("JsonlAppendFile", () => {
  beforeEach(() => {
    opened.length = 0;
  });

  it("rejects the lines of a failed write, closes that handle, and opens the file again for the next append", async () => {
    const file = new JsonlAppendFile("/records/x.jsonl");
    failNextWrite = true;
    await expect(file.append({ n: 1 })).rejects.toThrow(/cannot append to \/records\/x.jsonl: EIO/);
    await file.append({ n: 2 });
    expect(opened).toHaveLength(2);
    expect(opened[0]!.closed).toBe(true);
    expect(opened[1]!.writes).toEqual(['{"n":2}\n']);
    await file.close();
    await expect(file.append({ n: 3 })).rejects.toThrow(/closed/);
  });
});
