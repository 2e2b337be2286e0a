/**
 * The map and the guide hold to the code: every file or folder ARCHITECTURE.md or CONTRIBUTING.md
 * names exists, ARCHITECTURE.md's layers table is the one the import-graph test enforces
 * (test/architecture/layers.ts), its chat path lists the files a healthy `client.chat` is measured
 * to cross (test/architecture/chat-path.ts), and README.md links both. Their commands are run like
 * every documented command (test/docs/documented.ts, test/docs/coverage.test.ts).
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { filesCrossedByChat } from "../architecture/chat-path.ts";
import { allowed } from "../architecture/layers.ts";
import { projectRoot } from "./documented.ts";

const documents = ["ARCHITECTURE.md", "CONTRIBUTING.md"] as const;
const read = (file: string) => readFileSync(path.join(projectRoot, file), "utf8");

/** Paths of this repository: under one of its top folders, or a file at its root. */
const repositoryPath =
  /(?<![\w./-])((?:src|test|tools|infra|docs|schema|bin|\.github|\.ci)\/[\w./-]*|[A-Z][A-Z-]*\.md|(?:package|tsconfig|biome)\.json|wrangler\.jsonc|Pulumi(?:\.dev)?\.yaml)/g;

/** Paths named that are not this repository's, and why. */
const elsewhere = [
  // Cloudflare's documentation repository (cloudflare/cloudflare-docs), where AI Gateway's pages are.
  "src/content/docs/ai-gateway",
];

/** Every path `markdown` names, without a sentence's final stop; placeholders and globs skipped. */
function pathsNamed(markdown: string): string[] {
  const found = new Set<string>();
  for (const match of markdown.matchAll(repositoryPath)) {
    const named = match[1]!.replace(/[.,]+$/, "");
    const next = markdown[match.index! + match[1]!.length];
    // `docs/*.md`, `src/{folder}`: a pattern, not a path.
    if (next === "*" || next === "{" || next === "<") continue;
    if (!elsewhere.includes(named)) found.add(named);
  }
  return [...found];
}

/** The lines of the section under `## heading`, up to the next `## `. */
function section(markdown: string, heading: string): string[] {
  const lines = markdown.split("\n");
  const start = lines.indexOf(`## ${heading}`);
  if (start === -1) throw new Error(`no "## ${heading}" section`);
  const end = lines.findIndex((line, index) => index > start && line.startsWith("## "));
  return lines.slice(start + 1, end === -1 ? undefined : end);
}

describe("ARCHITECTURE.md and CONTRIBUTING.md", () => {
  it.each(documents)("%s names only files and folders that exist", (file) => {
    const named = pathsNamed(read(file));
    expect(named.length).toBeGreaterThan(10);
    expect(named.filter((name) => !existsSync(path.join(projectRoot, name)))).toEqual([]);
  });

  it("would find the paths of a sentence, and skip patterns and other repositories' paths", () => {
    expect(
      pathsNamed(
        "See `src/wire/universal-body.ts`, test/docs/map.test.ts. Also docs/*.md, src/{x}, " +
          "README.md and `src/content/docs/ai-gateway` in cloudflare/cloudflare-docs.",
      ),
    ).toEqual(["src/wire/universal-body.ts", "test/docs/map.test.ts", "README.md"]);
  });

  it("ARCHITECTURE.md's layers table is the import-graph test's", () => {
    const rows = section(read("ARCHITECTURE.md"), "Layers").filter((line) =>
      line.startsWith("| `src/"),
    );
    const table = Object.fromEntries(
      rows.map((row) => {
        const cells = row.split("|").map((cell) => cell.trim());
        const folder = /^`src\/([\w-]+)\/`$/.exec(cells[1]!)?.[1];
        const imports = cells.at(-2)!;
        return [
          folder,
          imports === "—" ? [] : imports.split(", ").map((name) => name.replaceAll("`", "")),
        ];
      }),
    );
    expect(table).toEqual(allowed);
  });

  it("ARCHITECTURE.md's chat path is the files a healthy client.chat crosses", async () => {
    const listed = section(read("ARCHITECTURE.md"), "A chat call through the client")
      .map((line) => /^\d+\. `([^`]+)`/.exec(line)?.[1])
      .filter((file) => file !== undefined);
    const crossed = (await filesCrossedByChat()).map(({ file }) => file.split(path.sep).join("/"));
    expect(listed.sort(), "ARCHITECTURE.md should list these files").toEqual(crossed.sort());
  });

  it.each(documents)("README.md links %s", (file) => {
    expect(read("README.md")).toContain(`](${file})`);
  });
});
