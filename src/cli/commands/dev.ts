/**
 * @module
 * `stepwise dev`: run the local AI Gateway emulator (and mock providers) for a stack, print its
 * URLs, and stop cleanly on SIGINT or SIGTERM.
 */
import { Command, Option } from "commander";
import pc from "picocolors";
import type { Emulator, EmulatorOptions } from "../../emulator/index.ts";
import type { FaultRule, FaultSchedule } from "../../emulator/mocks/index.ts";
import { defaultGatewayToken, defaultLogCapacity } from "../../emulator/options.ts";
import { StepwiseError } from "../../errors/index.ts";
import { type ConfigSourceOptions, loadConfigFrom, withConfigOptions } from "../config-options.ts";
import { exitCodesHelp } from "../exit-codes.ts";

/** What the command reads from its surroundings; injectable for tests. */
export interface DevDependencies {
  /** `process.env` by default. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Where output goes; `console.log` by default. */
  readonly print?: (line: string) => void;
  /** Resolves when the emulator should stop; SIGINT/SIGTERM by default. */
  readonly untilStopped?: () => Promise<string>;
  /** Starts the emulator; `startEmulator` by default. */
  readonly start?: (options: EmulatorOptions) => Promise<Emulator>;
}

interface DevOptions extends ConfigSourceOptions {
  port: string;
  upstream?: string[];
  faultFile?: string;
  faultRule?: string[];
  seed?: string;
  json?: boolean;
  logCapacity?: string;
  credits?: string;
}

/** A bad `dev` flag, with what to write instead. Code `dev_invalid_option`. */
export class DevOptionError extends StepwiseError {
  static override readonly kind: string = "stepwise.DevOptionError";
  constructor(message: string) {
    super({ code: "dev_invalid_option", message });
    this.name = "DevOptionError";
  }
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

export function devCommand(dependencies: DevDependencies = {}): Command {
  return withConfigOptions(new Command("dev"))
    .description("Run the local AI Gateway emulator with mock providers until interrupted")
    .option("-p, --port <port>", "port to listen on (0 picks a free one)", "8787")
    .option(
      "-u, --upstream <provider=url>",
      "send a provider's requests to another server (repeatable)",
      collect,
    )
    .option(
      "--fault-file <file>",
      "a fault schedule (YAML or JSON) for the mock providers; see docs/emulator.md",
    )
    .option(
      "--fault-rule <rule>",
      "one fault rule, e.g. anthropic=overloaded,count=2 (repeatable; added after --fault-file's)",
      collect,
    )
    .addOption(new Option("--seed <n>", "seed for random faults"))
    .option("--json", "print the URLs as one JSON line")
    .option(
      "--log-capacity <n>",
      `log records kept per gateway, the oldest dropped past it (default ${defaultLogCapacity})`,
    )
    .option(
      "--credits <usd>",
      "Unified Billing credits in USD for calls sent without a provider key (default: unlimited)",
    )
    .addHelpText(
      "after",
      [
        "",
        "Authenticated gateways expect cf-aig-authorization: Bearer <token>; the token is",
        `$STEPWISE_GATEWAY_TOKEN, else the config's plain gatewayToken, else "${defaultGatewayToken}".`,
        "The REST API (/client/v4/accounts/<account>/ai/...) takes the same token as",
        "Authorization: Bearer <token>; the gateway comes from cf-aig-gateway-id, else default.",
        "So do the settings API (/client/v4/accounts/<account>/ai-gateway/...) and the Secrets Store.",
        "",
        "Examples:",
        "  stepwise dev",
        "  stepwise dev --port 0 --fault-rule anthropic=overloaded --fault-rule openai:gpt-4o-mini=stream-cut",
        "  stepwise dev --upstream openai=http://127.0.0.1:9101 --fault-file outage.yaml",
        "  stepwise dev --credits 5",
        exitCodesHelp("the config is invalid"),
      ].join("\n"),
    )
    .action(async (options: DevOptions) => {
      const print = dependencies.print ?? ((line: string) => console.log(line));
      const env = dependencies.env ?? process.env;
      const { config, source } = await loadConfigFrom(options);
      const port = readPort(options.port);
      const upstreams = readUpstreams(options.upstream ?? []);
      const faults = await readFaults(options);
      const logCapacity = readLogCapacity(options.logCapacity);
      const credits = readCredits(options.credits);
      const gatewayToken = env.STEPWISE_GATEWAY_TOKEN || undefined;
      // The emulator loads when the command runs, not when `stepwise --help` starts.
      const start = dependencies.start ?? (await import("../../emulator/index.ts")).startEmulator;
      const emulator = await start({
        config,
        port,
        upstreams,
        ...(faults ? { faults } : {}),
        ...(gatewayToken ? { gatewayToken } : {}),
        ...(logCapacity === undefined ? {} : { logCapacity }),
        ...(credits === undefined ? {} : { credits }),
      });
      // Listen for Ctrl-C before printing the URLs: whoever reads them may stop us at once.
      const untilStopped = dependencies.untilStopped ?? waitForSignal;
      const stopped = untilStopped();
      print(
        options.json
          ? JSON.stringify(describe(emulator))
          : summary(emulator, source, faults, gatewayToken !== undefined),
      );
      const signal = await stopped;
      if (!options.json) print(pc.dim(`${signal}: stopping the emulator…`));
      await emulator.close();
      if (!options.json) print(pc.dim("stopped"));
    });
}

function readPort(text: string): number {
  const port = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new DevOptionError(
      `--port must be a number from 0 to 65535 (0 picks a free port), got "${text}".`,
    );
  }
  return port;
}

function readLogCapacity(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const capacity = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(capacity) || capacity < 1) {
    throw new DevOptionError(
      `--log-capacity must be a whole number of log records of at least 1, got "${text}".`,
    );
  }
  return capacity;
}

function readCredits(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const credits = /^\d+(\.\d+)?$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isFinite(credits)) {
    throw new DevOptionError(
      `--credits must be an amount of USD of at least 0, e.g. --credits 5 or --credits 0.5; got "${text}".`,
    );
  }
  return credits;
}

function readUpstreams(flags: readonly string[]): Record<string, string> {
  const upstreams: Record<string, string> = {};
  for (const flag of flags) {
    const equals = flag.indexOf("=");
    const provider = flag.slice(0, equals).trim();
    const url = flag.slice(equals + 1).trim();
    if (equals < 1 || url === "") {
      throw new DevOptionError(
        `--upstream takes provider=url, e.g. openai=http://127.0.0.1:9101; got "${flag}".`,
      );
    }
    upstreams[provider] = url;
  }
  return upstreams;
}

async function readFaults(options: DevOptions): Promise<FaultSchedule | undefined> {
  const { loadFaultSchedule, parseFaultFlag } = await import("../../emulator/mocks/index.ts");
  const fromFile = options.faultFile ? await loadFaultSchedule(options.faultFile) : undefined;
  const fromFlags: FaultRule[] = (options.faultRule ?? []).map(parseFaultFlag);
  if (!fromFile && fromFlags.length === 0) return undefined;
  let seed = fromFile?.seed;
  if (options.seed !== undefined) {
    seed = /^\d+$/.test(options.seed) ? Number(options.seed) : Number.NaN;
    if (!Number.isSafeInteger(seed))
      throw new DevOptionError(`--seed must be a whole number, got "${options.seed}".`);
  }
  const rules = [...(fromFile?.rules ?? []), ...fromFlags];
  return seed === undefined ? { rules } : { seed, rules };
}

/** The URLs a client needs, as data. */
export function describe(emulator: Emulator) {
  return {
    url: emulator.url,
    rest: emulator.restUrl,
    ai: emulator.aiUrl,
    gatewayBase: `${emulator.url}/v1/${emulator.accountId}`,
    gateways: Object.fromEntries(
      emulator.state.gateways.list().map((gateway) => [
        gateway.id,
        {
          universal: emulator.gatewayUrl(gateway.id),
          compat: `${emulator.compatUrl(gateway.id)}/chat/completions`,
          authentication: gateway.settings.authentication,
        },
      ]),
    ),
    upstreams: emulator.upstreams,
    mocks: emulator.mocks ? Object.keys(emulator.mocks.urls) : [],
  };
}

function summary(
  emulator: Emulator,
  source: string,
  faults: FaultSchedule | undefined,
  tokenFromEnv: boolean,
): string {
  const urls = describe(emulator);
  const mocked = new Set(urls.mocks);
  const lines = [
    `${pc.green("✔")} Stepwise AI Gateway emulator for ${source} — listening on ${pc.bold(emulator.url)}`,
    "",
    `  gateway base  ${urls.gatewayBase}`,
    `  REST API      ${urls.rest}  ${pc.dim("(cloudflare SDK baseURL)")}`,
    `  AI REST API   ${urls.ai}  ${pc.dim("(OpenAI and Anthropic SDK baseURL, token as apiKey)")}`,
  ];
  for (const [id, gateway] of Object.entries(urls.gateways)) {
    lines.push(
      "",
      `  ${pc.bold(`gateway ${id}`)} ${pc.dim(gateway.authentication ? "(authenticated)" : "(open)")}`,
      `    universal   ${gateway.universal}`,
      `    compat      ${gateway.compat}`,
    );
  }
  lines.push("", "  upstreams");
  for (const [provider, url] of Object.entries(urls.upstreams)) {
    lines.push(`    ${provider.padEnd(18)}${url}${mocked.has(provider) ? pc.dim(" (mock)") : ""}`);
  }
  lines.push(
    "",
    tokenFromEnv
      ? "  gateway token from $STEPWISE_GATEWAY_TOKEN"
      : `  gateway token ${emulator.gatewayToken} ${pc.dim("(set STEPWISE_GATEWAY_TOKEN to change)")}`,
  );
  if (faults)
    lines.push(
      `  faults        ${faults.rules.length} rule(s)${faults.seed === undefined ? "" : `, seed ${faults.seed}`}`,
    );
  lines.push("", pc.dim("Press Ctrl+C to stop."));
  return lines.join("\n");
}

function waitForSignal(): Promise<string> {
  return new Promise((resolve) => {
    const stop = (signal: string) => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      resolve(signal);
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
  });
}
