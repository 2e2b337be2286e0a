/**
 * The release workflow is a file, and it releases the way CHANGELOG.md and the workflow's own
 * header say: by hand with a version or on a version tag; the whole suite before the publish; npm
 * provenance (an OIDC token, so `id-token: write`); the tag pushed only after the publish; every
 * action pinned to a commit SHA, as in the CI workflow.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { projectRoot } from "./documented.ts";

const workflowFile = ".github/workflows/release.yml";
const text = readFileSync(path.join(projectRoot, workflowFile), "utf8");

interface Step {
  readonly name?: string;
  readonly uses?: string;
  readonly run?: string;
  readonly if?: string;
  readonly with?: Record<string, unknown>;
  readonly env?: Record<string, string>;
}
interface Job {
  readonly permissions?: Record<string, string>;
  readonly "runs-on": string;
  readonly steps: readonly Step[];
}
const workflow = parse(text) as {
  on: {
    push: { tags: string[] };
    workflow_dispatch: { inputs: Record<string, { required: boolean }> };
  };
  permissions: Record<string, string>;
  concurrency: { "cancel-in-progress": boolean };
  jobs: Record<string, Job>;
};
const publish = workflow.jobs.publish!;
const runs = publish.steps.flatMap((step) => (step.run ? [step.run.trim()] : []));
const indexOf = (needle: string) => runs.findIndex((command) => command.includes(needle));
const manifest = JSON.parse(readFileSync(path.join(projectRoot, "package.json"), "utf8")) as {
  name: string;
  version: string;
  private?: boolean;
  devDependencies: Record<string, string>;
};

describe(`${workflowFile}`, () => {
  it("runs by hand with a version, or on a pushed version tag", () => {
    expect(workflow.on.push.tags).toEqual(["v*.*.*"]);
    expect(workflow.on.workflow_dispatch.inputs.version?.required).toBe(true);
  });

  it("holds write permissions only in the publishing job: the tag and the provenance token", () => {
    expect(workflow.permissions).toEqual({ contents: "read" });
    expect(publish.permissions).toEqual({ contents: "write", "id-token": "write" });
    expect(workflow.concurrency["cancel-in-progress"]).toBe(false);
  });

  it("pins every action to a commit SHA, naming its release, with the project's Node.js", () => {
    const uses = [...text.matchAll(/uses: (\S+)(.*)/g)];
    expect(uses.length).toBeGreaterThan(0);
    for (const [, action, comment] of uses) {
      expect(action, `${action} is not pinned to a SHA`).toMatch(/^[\w-]+\/[\w-]+@[0-9a-f]{40}$/);
      expect(comment).toMatch(/# v\d+\.\d+\.\d+$/);
    }
    const setupNode = publish.steps.find((step) => step.uses?.startsWith("actions/setup-node"));
    expect(setupNode?.with).toMatchObject({
      "node-version": 20,
      "registry-url": "https://registry.npmjs.org",
    });
  });

  it("versions, checks the changelog, tests, publishes with provenance, then pushes the tag", () => {
    const install = runs.indexOf("npm ci");
    const version = indexOf('npm version "$VERSION"');
    const changelog = indexOf("CHANGELOG.md");
    const test = runs.indexOf("npm test");
    const release = runs.indexOf("npm publish --provenance --access public");
    const push = indexOf("git push --follow-tags");
    expect(install).toBe(0);
    for (const [earlier, later] of [
      [install, version],
      [version, changelog],
      [changelog, test],
      [test, release],
      [release, push],
    ] as const) {
      expect(earlier).toBeGreaterThanOrEqual(0);
      expect(earlier).toBeLessThan(later);
    }
    // On a tag, the version is the tag's: package.json must already say it.
    expect(runs[version]).toContain(
      `test "v$(node -p 'require("./package.json").version')" = "$GITHUB_REF_NAME"`,
    );
    // Only a run by hand made a commit and a tag to push.
    const pushStep = publish.steps.find((step) => step.run?.includes("git push"));
    expect(pushStep?.if).toBe("github.event_name == 'workflow_dispatch'");
    const publishStep = publish.steps.find((step) => step.run?.startsWith("npm publish"));
    expect(publishStep?.env?.NODE_AUTH_TOKEN).toMatch(/^\$\{\{ secrets\.NPM_TOKEN \}\}$/);
  });

  it("releases a publishable package whose version has a changelog section", () => {
    expect(manifest.private).toBeUndefined();
    const changelog = readFileSync(path.join(projectRoot, "CHANGELOG.md"), "utf8");
    const latest = /^## \[([^\]]+)\]/m.exec(changelog)?.[1];
    expect(latest).toBe(manifest.version);
  });
});
