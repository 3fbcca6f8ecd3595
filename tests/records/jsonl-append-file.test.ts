import { beforeEach, describe, expect, it, vi } from "vitest";

// fs/promises with handles whose first write fails (a disk error) or is cut short (a full disk), to see the file
// opened again afterwards
const opened: { writes: string[]; closed: boolean }[] = [];
let failNextWrite = false;
let shortNextWrite = false;
vi.mock("node:fs/promises", async (importOriginal) => {
  const actual = await importOriginal<typeof import("node:fs/promises")>();
  return {
    ...actual,
    mkdir: async () => undefined,
    open: async () => {
      const handle = { writes: [] as string[], closed: false };
      opened.push(handle);
      return {
        writev: async (buffers: Buffer[]) => {
          if (failNextWrite) {
            failNextWrite = false;
            throw new Error("EIO: i/o error, write");
          }
          const bytes = Buffer.concat(buffers);
          const bytesWritten = shortNextWrite ? bytes.length - 3 : bytes.length;
          shortNextWrite = false;
          handle.writes.push(bytes.subarray(0, bytesWritten).toString());
          return { bytesWritten, buffers };
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

  it("a short write fails its lines (naming the bytes), and lines of several appends go out together, in order", async () => {
    const file = new JsonlAppendFile("/records/y.jsonl");
    shortNextWrite = true;
    await expect(file.append({ text: "héllo" })).rejects.toThrow("cannot append to /records/y.jsonl: wrote 15 of 18 bytes (disk full?)");
    await Promise.all([file.append({ n: 1 }), file.append({ n: "→" }), file.append({ n: 3 })]);
    expect(opened).toHaveLength(2);
    expect(opened[1]!.writes.join("")).toBe('{"n":1}\n{"n":"→"}\n{"n":3}\n');
    await file.close();
  });
});
