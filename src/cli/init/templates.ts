/**
 * @module
 * The files `stepwise init` writes for a new gateway repository, as text: a Pulumi project whose
 * program is the package's `/pulumi` entry, one stack file, CI (validate, test, plan and preview
 * on pull requests, up on main), a test of the routes against the emulator, and a README.
 */

/** What a new repository is made from (flags or prompts). */
export interface InitAnswers {
  /** The repository's npm name. */
  readonly name: string;
  /** Stack name: `Pulumi.<stack>.yaml`. */
  readonly stack: string;
  readonly accountId: string;
  /** The first gateway's id. */
  readonly gateway: string;
  /** Provider slug and model of the default route's one step. */
  readonly provider: string;
  readonly model: string;
}

/** This package, as the new repository depends on it. */
export interface PackageRef {
  readonly name: string;
  readonly version: string;
  /** Exact versions the package is built and tested with (its devDependencies). */
  readonly versions: Readonly<Record<string, string>>;
}

/** A `secure:` value that stands for a secret still to set; Pulumi cannot decrypt it. */
function placeholder(what: string): string {
  const encode = (text: string) => Buffer.from(text).toString("base64");
  return `v1:${encode("stepwise-init-placeholder")}:${encode(what)}`;
}

/** Relative path → file text, in the order they are written. */
export function repositoryFiles(answers: InitAnswers, pkg: PackageRef): Record<string, string> {
  const { stack } = answers;
  return {
    "package.json": packageJson(answers, pkg),
    "Pulumi.yaml": pulumiYaml(answers),
    "index.ts": program(pkg),
    [`Pulumi.${stack}.yaml`]: stackFile(answers, pkg),
    ".github/workflows/gateway.yml": workflow(answers, pkg),
    "test/routes.test.ts": routesTest(answers, pkg),
    "README.md": readme(answers),
    ".gitignore": "node_modules/\n",
  };
}

function packageJson(answers: InitAnswers, pkg: PackageRef): string {
  const exact = (name: string) => {
    const version = pkg.versions[name];
    if (version === undefined) throw new Error(`${pkg.name} has no pinned version of ${name}`);
    return version;
  };
  const manifest = {
    name: answers.name,
    private: true,
    type: "module",
    scripts: {
      validate: `stepwise validate --stack ${answers.stack}`,
      plan: `stepwise plan --stack ${answers.stack}`,
      test: "vitest run",
    },
    dependencies: { [pkg.name]: pkg.version },
    devDependencies: {
      "@pulumi/cloudflare": exact("@pulumi/cloudflare"),
      "@pulumi/pulumi": exact("@pulumi/pulumi"),
      tsx: exact("tsx"),
      vitest: exact("vitest"),
    },
  };
  return `${JSON.stringify(manifest, null, 2)}\n`;
}

function pulumiYaml(answers: InitAnswers): string {
  return `name: ${answers.name}
description: Cloudflare AI Gateway as code, with Stepwise
runtime:
  name: nodejs
  options:
    packagemanager: npm
    # index.ts is ESM TypeScript run by tsx; with a loader here Pulumi skips its own ts-node.
    typescript: false
    nodeargs: "--import tsx"
main: index.ts
`;
}

function program(pkg: PackageRef): string {
  return `// The Pulumi program: reads this stack's stepwise: config (the same checks as
// \`stepwise validate\`) and declares every gateway, route and the companion Worker.
import { buildCurrentStack } from "${pkg.name}/pulumi";

const stack = buildCurrentStack();

/** Per gateway: universalUrl, compatUrl and its dynamic routes. */
export const gateways = stack.outputs.gateways;
/** The companion Worker's URL, when worker.workersDevSubdomain is set. */
export const workerUrl = stack.outputs.workerUrl;
export const kvNamespaceId = stack.outputs.kvNamespaceId;
`;
}

function stackFile(answers: InitAnswers, pkg: PackageRef): string {
  return `# yaml-language-server: $schema=./node_modules/${pkg.name}/dist/stepwise-config.schema.json
# Stack ${answers.stack}: written by stepwise init. \`npx stepwise validate --stack ${answers.stack}\` checks it.
config:
  # The secure: values below are placeholders, so validate, plan and the tests run before any
  # secret exists. Replace each before the first preview (README.md, "Secrets").
  cloudflare:apiToken:
    secure: ${placeholder("pulumi config set --secret cloudflare:apiToken <token>")}
  stepwise:accountId: "${answers.accountId}"
  stepwise:gateways:
    - id: ${answers.gateway}
      authentication: true
      cache: { ttl: 300 }
      rateLimit: { limit: 600, interval: 60, technique: sliding }
      logs: { collect: true, limit: 100000, strategy: DELETE_OLDEST }
      routes:
        # Keys come from the companion Worker, so routes are universal-only (the client sends
        # the steps): Cloudflare runs dynamic routes only with keys stored in the gateway (BYOK).
        default:
          dynamic: false
          steps:
            - { provider: ${answers.provider}, model: ${JSON.stringify(answers.model)}, timeoutMs: 10000 }
  stepwise:keys:
    providers: [${answers.provider}]
  stepwise:worker:
    name: ${answers.gateway}-keys
  stepwise:rotateToken:
    secure: ${placeholder("pulumi config set --secret stepwise:rotateToken <long random token>")}
  stepwise:gatewayToken:
    secure: ${placeholder("pulumi config set --secret stepwise:gatewayToken <ai-gateway-token>")}
`;
}

function workflow(answers: InitAnswers, pkg: PackageRef): string {
  const pulumiVersion = pkg.versions["@pulumi/pulumi"];
  const setup = `      - uses: actions/checkout@11d5960a326750d5838078e36cf38b85af677262 # v4.4.0
      - uses: actions/setup-node@49933ea5288caeca8642d1e84afbd3f7d6820020 # v4.4.0
        with:
          node-version: 20
          cache: npm
      - run: npm ci
      - run: npx stepwise validate --stack ${answers.stack} --strict --format github`;
  const pulumi = `      - name: Install the Pulumi CLI
        uses: pulumi/actions@8582a9e8cc630786854029b4e09281acd6794b58 # v6.6.1
        with:
          pulumi-version: ${pulumiVersion}`;
  // The two Pulumi jobs differ only in when they run and the command.
  const pulumiJob = (name: string, condition: string, command: string) => `  ${name}:
    if: ${condition}
    needs: test
    runs-on: ubuntu-latest
    env:
      PULUMI_ACCESS_TOKEN: \${{ secrets.PULUMI_ACCESS_TOKEN }}
      PULUMI_CONFIG_PASSPHRASE: \${{ secrets.PULUMI_CONFIG_PASSPHRASE }}
    steps:
${setup}
${pulumi}
      - run: ${command}
`;
  return `# Written by stepwise init. Pull requests: validate (--strict: a warning fails the job too; --format
# github: each problem shown on its line of the pull request), test (routes on the emulator), plan
# (offline, no account), then pulumi preview. main: pulumi up. Actions are pinned to commit SHAs.
# Repository secrets: PULUMI_ACCESS_TOKEN (or your backend's) and PULUMI_CONFIG_PASSPHRASE for a
# passphrase backend; the Cloudflare token and Stepwise secrets live encrypted in the stack file.
name: gateway

on:
  pull_request:
  push:
    branches: [main]

permissions:
  contents: read

concurrency:
  group: gateway-\${{ github.ref }}
  cancel-in-progress: \${{ github.event_name == 'pull_request' }}

jobs:
  test:
    runs-on: ubuntu-latest
    steps:
${setup}
      - run: npm test
      - run: npx stepwise plan --stack ${answers.stack}

${pulumiJob("preview", "github.event_name == 'pull_request'", `pulumi preview --stack ${answers.stack} --diff`)}
${pulumiJob("deploy", "github.event_name == 'push' && github.ref == 'refs/heads/main'", `pulumi up --stack ${answers.stack} --yes`)}`;
}

function routesTest(answers: InitAnswers, pkg: PackageRef): string {
  return `// Every route of Pulumi.${answers.stack}.yaml, called through the local emulator of AI Gateway
// (mock providers, no account): each answers from its first step. Add a test per route you rely on.
import { readFileSync } from "node:fs";
import { parseConfigText } from "${pkg.name}/config";
import { type Emulator, startEmulator } from "${pkg.name}/emulator";
import { compileUniversalRequest } from "${pkg.name}/routes";
import { afterAll, beforeAll, expect, it } from "vitest";

const source = "Pulumi.${answers.stack}.yaml";
const config = parseConfigText(readFileSync(new URL(\`../\${source}\`, import.meta.url), "utf8"), source);
const gatewayToken = "test-gateway-token";
let emulator: Emulator;

beforeAll(async () => {
  emulator = await startEmulator({ config, gatewayToken });
});

afterAll(async () => {
  await emulator?.close();
});

for (const gateway of config.gateways) {
  for (const [name, route] of Object.entries(gateway.routes)) {
    it(\`\${gateway.id}: route \${name} answers from its first step\`, async () => {
      const body = compileUniversalRequest(
        route,
        { messages: [{ role: "user", content: "Hello" }] },
        { keyLookup: () => "test-provider-key" },
      );
      const response = await fetch(emulator.gatewayUrl(gateway.id), {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "cf-aig-authorization": \`Bearer \${gatewayToken}\`,
        },
        body: JSON.stringify(body),
      });
      expect(response.status).toBe(200);
      expect(response.headers.get("cf-aig-step")).toBe("0");
    });
  }
}
`;
}

function readme(answers: InitAnswers): string {
  const { stack } = answers;
  return `# ${answers.name}

Cloudflare AI Gateway as code with Stepwise: the gateways, routes and the companion Worker of
\`Pulumi.${stack}.yaml\`, deployed by the Pulumi program \`index.ts\`.

## Every day

\`\`\`sh
npm install
npx stepwise validate --stack ${stack}   # the config checks the program runs
npm test                                 # every route, on the local emulator
npx stepwise plan --stack ${stack}       # what pulumi up would create, offline
\`\`\`

## Secrets

The \`secure:\` values \`stepwise init\` wrote are placeholders. Before the first preview, set each
(Pulumi encrypts them into the stack file):

\`\`\`sh
pulumi stack init ${stack}
pulumi config set --secret cloudflare:apiToken <cloudflare-api-token>
pulumi config set --secret stepwise:rotateToken "$(openssl rand -hex 32)"
pulumi config set --secret stepwise:gatewayToken <ai-gateway-token>
\`\`\`

## Deploying

\`.github/workflows/gateway.yml\` validates, tests and plans every pull request, then runs
\`pulumi preview\`; a push to main runs \`pulumi up\`. Store \`PULUMI_ACCESS_TOKEN\` (and
\`PULUMI_CONFIG_PASSPHRASE\` for a passphrase backend) as repository secrets. After the first
deploy, load provider keys into the companion Worker with \`npx stepwise rotate\`.
`;
}
