// Every relative link in README.md and docs/*.md points at a file that exists and, with a #fragment into
// markdown, at a heading that exists there (GitHub's slug rules). External (http) links are not checked.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const root = path.join(import.meta.dirname, "../..");
const pages = ["README.md", ...readdirSync(path.join(root, "docs")).filter((name) => name.endsWith(".md")).map((name) => `docs/${name}`)];

/** The anchors GitHub gives a markdown file: one per heading (duplicates get -1, -2 …) plus explicit ids. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  const body = markdown.replace(/^```[\s\S]*?^```/gm, "");
  for (const match of body.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const slug = match[1]!
      .replace(/`/g, "")
      .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .replace(/\s/g, "-");
    const count = seen.get(slug) ?? 0;
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
    seen.set(slug, count + 1);
  }
  for (const match of body.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(match[1]!);
  return anchors;
}

/** Relative link targets of a markdown page, outside code blocks and inline code. */
function linksOf(markdown: string): string[] {
  const body = markdown.replace(/^```[\s\S]*?^```/gm, "").replace(/`[^`\n]*`/g, "");
  return [...body.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((match) => match[1]!).filter((target) => !/^[a-z]+:/i.test(target));
}

describe("doc links", () => {
  it("finds the pages", () => {
    expect(pages).toContain("docs/architecture.md");
    expect(anchorsOf("# A `b` (c)\n## A b c\n## A b c\n")).toEqual(new Set(["a-b-c", "a-b-c-1", "a-b-c-2"]));
    expect(linksOf("[a](x.md#y) `[b](z.md)` [c](https://e.org) [d](#top)")).toEqual(["x.md#y", "#top"]);
  });

  it.each(pages)("%s: every relative link and anchor resolves", (page) => {
    const text = readFileSync(path.join(root, page), "utf8");
    const broken: string[] = [];
    for (const link of linksOf(text)) {
      const [target, fragment] = link.split("#") as [string, string | undefined];
      const file = target === "" ? path.join(root, page) : path.resolve(path.dirname(path.join(root, page)), decodeURIComponent(target));
      if (!existsSync(file)) broken.push(`${link} (no such file)`);
      else if (fragment && file.endsWith(".md") && !anchorsOf(readFileSync(file, "utf8")).has(fragment)) broken.push(`${link} (no such heading)`);
    }
    expect(broken).toEqual([]);
  });
});
