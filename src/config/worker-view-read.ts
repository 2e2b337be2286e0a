/**
 * @module
 * The companion Worker's own reader of its view (`STEPWISE_CONFIG`): the same document
 * `workerViewSchema` (`worker-view.ts`) defines, checked by hand (`plain-checks.ts`) so the Worker
 * bundle carries no zod. It accepts and refuses what the schema does, fills the same defaults, and
 * names each bad field (test/config/worker-view-read.test.ts holds the two to one table). The
 * build side (`workerViewText`, Pulumi, the local system) still checks with the schema.
 */
import { formatPath } from "./document.ts";
import { ConfigError } from "./errors.ts";
import {
  array,
  boolean,
  type Check,
  int,
  intBetween,
  invalid,
  isPlainObject,
  number,
  object,
  optional,
  type PlainIssue,
  record,
  required,
  string,
} from "./plain-checks.ts";
import { builtInProviderSlugs, isConfigProviderSlug } from "./provider-slugs.ts";
import type { WorkerView } from "./worker-view.ts";
import { workerViewVersion } from "./worker-view-version.ts";

const providerSlug = string("a provider slug must be a string", [
  isConfigProviderSlug,
  `unknown provider: use one of ${builtInProviderSlugs.join(", ")}, or custom-<slug> for an OpenAI-compatible custom provider`,
]);
const gatewayId = string("a gateway id must be a string", [
  (id) => /^[a-z0-9-]{1,64}$/.test(id),
  "gateway ids use lowercase letters, digits and hyphens, at most 64 characters",
]);
const modelKey = string("a model key must be a string", [
  (key) => /^[a-z0-9-]+\/.+$/.test(key),
  'model keys are "<provider>/<model>", e.g. openai/gpt-4o-mini',
]);
const cacheTtl = int("cache TTL must be a whole number of seconds", [
  (ttl) => ttl === 0 || (ttl >= 60 && ttl <= 2_592_000),
  "cache TTL must be 0 (off) or between 60 and 2592000 seconds (30 days)",
]);

const gateway = object(
  {
    id: required(gatewayId),
    byok: optional(
      object(
        {
          providers: required(
            array(providerSlug, "byok.providers must be a list of provider slugs", [
              (list) => list.length >= 1,
              "byok.providers lists at least one provider; remove byok otherwise",
            ]),
          ),
        },
        "byok must be an object: { providers }",
      ),
    ),
    cache: optional(
      object(
        {
          ttl: required(cacheTtl),
          shareBetweenApps: optional(boolean("shareBetweenApps must be true or false")),
        },
        "cache must be an object: { ttl, shareBetweenApps? }",
      ),
    ),
  },
  "a gateway must be an object: { id, byok?, cache? }",
);

const price = number("a price per million tokens must be a number", [
  (value) => value >= 0,
  "a price per million tokens must be 0 or more",
]);

const keyCaps: Check<{ rpm?: number; tpm?: number }> = (value, path, issues) => {
  const caps = object(
    { rpm: optional(intBetween("rpm", 1)), tpm: optional(intBetween("tpm", 1)) },
    "caps must be an object: { rpm?, tpm? }",
  )(value, path, issues);
  if (caps === invalid || caps.rpm !== undefined || caps.tpm !== undefined) return caps;
  issues.push({
    path,
    message: "give rpm, tpm or both (the provider's per-key limits); remove the entry otherwise",
  });
  return invalid;
};

const keys = object(
  {
    providers: optional(
      array(providerSlug, "keys.providers must be a list of provider slugs"),
      () => [],
    ),
    maxAgeDays: optional(intBetween("maxAgeDays", 1, 3650), () => 90),
    historyHours: optional(intBetween("historyHours", 1, 24 * 365), () => 24),
    graceSeconds: optional(intBetween("graceSeconds", 0, 3600), () => 60),
    caps: optional(record(providerSlug, keyCaps, "keys.caps must be an object"), () => ({})),
  },
  "keys must be an object",
);

/** `z.url()`: what `URL` parses, trimmed, tabs and newlines taken out. */
const url: Check<string> = (value, path, issues) => {
  const text = string("gatewayUrl must be a URL")(value, path, issues);
  if (text === invalid) return invalid;
  if (!URL.canParse(text.trim())) {
    issues.push({
      path,
      message: "gatewayUrl must be a URL, e.g. https://gateway.ai.cloudflare.com",
    });
    return invalid;
  }
  return text.trim().replace(/[\t\n\r]/g, "");
};

const healthProbeDefaults = () => ({
  enabled: false,
  slowMs: 5_000,
  slowMsPerModel: {},
  probationSeconds: 900,
});

const worker = object(
  {
    gatewayUrl: optional(url, () => "https://gateway.ai.cloudflare.com"),
    appRateLimit: optional(
      object(
        {
          limit: required(intBetween("limit", 1)),
          windowSeconds: required(intBetween("windowSeconds", 1)),
        },
        "appRateLimit must be an object: { limit, windowSeconds }",
      ),
      () => ({ limit: 600, windowSeconds: 60 }),
    ),
    healthProbe: optional(
      object(
        {
          enabled: optional(boolean("enabled must be true or false"), () => false),
          slowMs: optional(intBetween("slowMs", 1), () => 5_000),
          slowMsPerModel: optional(
            record(
              string("a slowMsPerModel key must be a string", [
                (key) => /^[a-z0-9-]+(?:\/.+)?$/.test(key),
                'slowMsPerModel keys are "<provider>" or "<provider>/<model>"',
              ]),
              int("slowMs is a whole number of ms", [
                (ms) => ms >= 1,
                "slowMs must be at least 1 ms",
              ]),
              "slowMsPerModel must be an object",
            ),
            () => ({}),
          ),
          probationSeconds: optional(
            int("probationSeconds must be a whole number", [
              (seconds) => seconds >= 0 && seconds <= 86_400,
              "probationSeconds must be 0 to 86400 (a day)",
            ]),
            () => 900,
          ),
        },
        "healthProbe must be an object",
      ),
      healthProbeDefaults,
    ),
  },
  "worker must be an object: { gatewayUrl?, appRateLimit?, healthProbe? }",
);

const view = object(
  {
    version: required(
      int(versionMessage(), [(version) => version === workerViewVersion, versionMessage()]),
    ),
    accountId: required(
      string("accountId is required: your 32-character Cloudflare account id", [
        (id) => /^[0-9a-f]{32}$/.test(id),
        "accountId must be the 32 lowercase hex characters of your Cloudflare account id",
      ]),
    ),
    gateways: required(
      array(gateway, "gateways must be a list of gateways", [
        (list) => list.length >= 1,
        "list at least one gateway",
      ]),
    ),
    models: required(
      record(
        modelKey,
        object(
          { input: required(price), output: required(price) },
          "a price must be an object: { input, output }",
        ),
        "models must be an object of prices",
      ),
    ),
    probes: required(
      record(
        gatewayId,
        array(modelKey, "a gateway's probes are a list of model keys"),
        "probes must be an object",
      ),
    ),
    keys: required(keys),
    worker: required(worker),
  },
  "the worker view must be a JSON object",
  (names) =>
    `${names.map((name) => `"${name}"`).join(", ")} ${names.length === 1 ? "is" : "are"} not part of the Worker's view: a whole Stepwise config, or a view of a newer version? Bind workerViewText(config), as Pulumi and the local system do`,
);

function versionMessage(): string {
  return `version must be ${workerViewVersion}: this Worker reads worker views of version ${workerViewVersion}; deploy the Worker and its STEPWISE_CONFIG together (pulumi up), or rebuild the variable with workerViewText(config)`;
}

/**
 * Checks a parsed view value as `workerViewSchema` does: the view (defaults filled), or every
 * issue with its path.
 */
export function checkWorkerView(
  value: unknown,
): { readonly view: WorkerView } | { readonly issues: readonly PlainIssue[] } {
  const issues: PlainIssue[] = [];
  const parsed = view(value, [], issues);
  probesOfListedGateways(value, issues);
  return parsed === invalid || issues.length > 0 ? { issues } : { view: parsed as WorkerView };
}

/**
 * Each gateway `probes` names is one `gateways` lists. Checked whenever both are there, valid or
 * not (as the schema's refinement runs after problems it can go past).
 */
function probesOfListedGateways(value: unknown, issues: PlainIssue[]): void {
  if (!isPlainObject(value) || !Array.isArray(value.gateways) || !isPlainObject(value.probes)) {
    return;
  }
  if (!value.gateways.every(isPlainObject)) return;
  const ids = new Set(value.gateways.map((item) => item.id));
  for (const name of Object.keys(value.probes)) {
    if (!ids.has(name)) {
      issues.push({
        path: ["probes", name],
        message: `names gateway "${name}", which gateways does not list; rebuild the view with workerViewText(config)`,
      });
    }
  }
}

/**
 * Reads a worker view without zod, as `parseWorkerView` does with the schema: its JSON text (a
 * `plain_text` variable) or the value (a `json` binding, a test).
 * @throws {ConfigError} `config_invalid`, one issue per bad field with its path and the fix.
 */
export function readWorkerView(input: unknown, source = "STEPWISE_CONFIG"): WorkerView {
  let value = input;
  if (typeof input === "string") {
    try {
      value = JSON.parse(input);
    } catch (error) {
      throw new ConfigError({
        code: "config_invalid",
        source,
        issues: [
          {
            path: "",
            message:
              "is not valid JSON: set it to workerViewText(config), as Pulumi and the local system do",
          },
        ],
        cause: error,
      });
    }
  }
  const checked = checkWorkerView(value);
  if ("view" in checked) return checked.view;
  throw new ConfigError({
    code: "config_invalid",
    source,
    issues: checked.issues.map((issue) => ({
      path: formatPath(issue.path),
      message: issue.message,
    })),
  });
}
