// Small fsync helpers for the store: append a line durably, replace a file atomically, fsync a folder.
// Knows nothing of what the bytes mean.
import { open, rename } from "node:fs/promises";

export async function fsyncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Appends and fsyncs before resolving. */
export async function appendDurably(path: string, text: string): Promise<void> {
  const handle = await open(path, "a");
  try {
    await handle.appendFile(text, "utf8");
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Writes `path.tmp`, fsyncs it, renames it over `path` and fsyncs the folder. */
export async function replaceDurably(path: string, dir: string, text: string, mode = 0o644): Promise<void> {
  const temporary = `${path}.tmp`;
  const handle = await open(temporary, "w", mode);
  try {
    await handle.writeFile(text, "utf8");
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(temporary, path);
  await fsyncDirectory(dir);
}
