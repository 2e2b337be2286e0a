/**
 * The CI workflow is a file, and it does what the README says: validate and test (with Chromium)
 * on every pull request and push, `pulumi preview` on pull requests, `pulumi up` on main; every
 * command it runs is one the README shows; every action is pinned to a commit SHA.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { allDocumentedCommands, projectRoot } from "./documented.ts";

const workflowFile = ".github/workflows/ci.yml";
const text = readFileSync(path.join(projectRoot, workflowFile), "utf8");

interface Step {
  readonly name?: string;
  readonly uses?: string;
  readonly run?: string;
  readonly with?: Record<string, unknown>;
}
interface Job {
  readonly if?: string;
  readonly needs?: string;
  readonly "runs-on": string;
  readonly steps: readonly Step[];
}
const workflow = parse(text) as {
  on: { pull_request: unknown; push: { branches: string[] } };
  permissions: Record<string, string>;
  jobs: Record<string, Job>;
};

const runs = (job: Job) => job.steps.flatMap((step) => (step.run ? [step.run.trim()] : []));

describe(`${workflowFile}`, () => {
  it("runs on pull requests and on pushes to main, with read-only permissions", () => {
    expect(workflow.on).toHaveProperty("pull_request");
    expect(workflow.on.push.branches).toEqual(["main"]);
    expect(workflow.permissions).toEqual({ contents: "read" });
  });

  it("pins every action to a commit SHA, naming its release", () => {
    const uses = [...text.matchAll(/uses: (\S+)(.*)/g)];
    expect(uses.length).toBeGreaterThan(0);
    for (const [, action, comment] of uses) {
      expect(action, `${action} is not pinned to a SHA`).toMatch(/^[\w-]+\/[\w-]+@[0-9a-f]{40}$/);
      expect(comment).toMatch(/# v\d+\.\d+\.\d+$/);
    }
  });

  it("validates and tests on every event, with Chromium where the browser test looks for it", () => {
    const test = workflow.jobs.test!;
    expect(test.if).toBeUndefined();
    const commands = runs(test);
    const chromium = commands.findIndex((command) => command.includes("chromium"));
    expect(commands.indexOf("npm ci")).toBeLessThan(chromium);
    expect(chromium).toBeLessThan(commands.indexOf("npm test"));
    expect(commands).toContain("npx stepwise validate --stack dev --strict --format github");
    // The browser test opens this path; the step installs Chromium there when it is missing.
    const browserTest = readFileSync(
      path.join(projectRoot, "test/analytics/html-report.browser.test.ts"),
      "utf8",
    );
    const chromiumPath = /const chromiumPath = "([^"]+)"/.exec(browserTest)?.[1];
    expect(chromiumPath).toBeDefined();
    expect(commands[chromium]).toContain(`sudo ln -sf`);
    expect(commands[chromium]).toContain(chromiumPath);
    expect(commands[chromium]).toContain("playwright-core install --with-deps chromium");
  });

  it("previews on pull requests and deploys from main, after the tests", () => {
    const { preview, deploy } = workflow.jobs;
    expect(preview?.if).toBe("github.event_name == 'pull_request'");
    expect(preview?.needs).toBe("test");
    expect(runs(preview!)).toEqual([
      "npm ci",
      "npx stepwise validate --stack dev --strict --format github",
      "npm run worker:bundle",
      "pulumi preview --stack dev --diff",
    ]);
    expect(deploy?.if).toBe("github.event_name == 'push' && github.ref == 'refs/heads/main'");
    expect(deploy?.needs).toBe("test");
    expect(runs(deploy!)).toEqual([
      "npm ci",
      "npx stepwise validate --stack dev --strict --format github",
      "npm run worker:bundle",
      "pulumi up --stack dev --yes",
      "pulumi preview --stack dev --expect-no-changes",
    ]);
  });

  it("runs only commands the README shows", () => {
    const readme = new Set(
      allDocumentedCommands()
        .filter((command) => command.file === "README.md")
        .map((command) => command.text),
    );
    const commands = Object.values(workflow.jobs)
      .flatMap(runs)
      .filter((command) => !command.includes("\n"));
    for (const command of commands)
      expect(readme, `${command} is not in the README`).toContain(command);
  });

  it("uses the Node.js and Pulumi versions the project pins", () => {
    const packageJson = JSON.parse(
      readFileSync(path.join(projectRoot, "package.json"), "utf8"),
    ) as {
      devDependencies: Record<string, string>;
    };
    const steps = Object.values(workflow.jobs).flatMap((job) => job.steps);
    for (const step of steps.filter((candidate) =>
      candidate.uses?.startsWith("actions/setup-node"),
    ))
      expect(step.with?.["node-version"]).toBe(20);
    for (const step of steps.filter((candidate) => candidate.uses?.startsWith("pulumi/actions")))
      expect(step.with?.["pulumi-version"]).toBe(packageJson.devDependencies["@pulumi/pulumi"]);
  });
});
