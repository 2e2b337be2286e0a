/**
 * Generated Stepwise configs, valid by construction, and unrelated mistakes planted in them, each
 * with the paths of the problems it must cause: what the one-pass test (`one-pass.test.ts`) and the
 * validate ⇔ preflight test (`test/pulumi/verdict-equivalence.test.ts`) feed `judgeConfig` and
 * the Pulumi program.
 */
import fc from "fast-check";

type Json = Record<string, unknown>;

const providers = ["openai", "anthropic", "groq", "mistral", "workers-ai"] as const;
const models = ["model-a", "model-b", "model-c"] as const;

export interface GeneratedStep {
  provider: string;
  model: string;
}

export interface GeneratedRoute {
  dynamic: boolean;
  steps: GeneratedStep[];
}

export interface GeneratedGateway {
  routes: GeneratedRoute[];
}

/** The config's skeleton: gateways and routes; keys and settings follow from it. */
export interface Skeleton {
  gateways: GeneratedGateway[];
}

const stepArbitrary = fc.record({
  provider: fc.constantFrom(...providers),
  model: fc.constantFrom(...models),
});

const routeArbitrary = fc.record({
  dynamic: fc.boolean(),
  steps: fc.uniqueArray(stepArbitrary, {
    minLength: 1,
    maxLength: 3,
    selector: (step) => `${step.provider}/${step.model}`,
  }),
});

export const skeletonArbitrary: fc.Arbitrary<Skeleton> = fc.record({
  gateways: fc.array(
    fc.record({ routes: fc.array(routeArbitrary, { minLength: 1, maxLength: 2 }) }),
    {
      minLength: 1,
      maxLength: 3,
    },
  ),
});

/** The kinds of mistake, each independent of the others. */
export const mistakeKinds = [
  "badAccountId",
  "badCacheTtl",
  "badRateTechnique",
  "unknownStepField",
  "misspeltProvider",
  "duplicateKeyProvider",
  "deadlineBelowTimeout",
  "unauthenticatedDynamic",
  "missingByokKey",
  "missingRotateToken",
  "retiredModel",
  "unsendableGuardrail",
  "byokOnlyWithUnifiedBilling",
  "unifiedBillingUnauthenticated",
] as const;
export type MistakeKind = (typeof mistakeKinds)[number];

/** A mistake and a number that picks where it goes. */
export interface Mistake {
  readonly kind: MistakeKind;
  readonly pick: number;
}

export const mistakesArbitrary: fc.Arbitrary<Mistake[]> = fc.uniqueArray(
  fc.record({ kind: fc.constantFrom(...mistakeKinds), pick: fc.nat(1000) }),
  { selector: (mistake) => mistake.kind, maxLength: mistakeKinds.length },
);

/** A generated config: its Stepwise keys, the secrets a deploy is given, and what was planted. */
export interface PlantedConfig {
  /** The Stepwise keys without secrets. */
  readonly input: Json;
  /** Set secrets: `rotateToken` and `byokKeys.<provider>`. */
  readonly secrets: { rotateToken?: string; byokKeys: Record<string, string> };
  /** The error paths the planted mistakes must cause, each once. */
  readonly expectedErrors: readonly string[];
  /** The mistakes that could be planted in this skeleton. */
  readonly planted: readonly MistakeKind[];
}

const routeName = (index: number) => `r${index}`;
const stepsPath = (gateway: number, route: number) =>
  `gateways[${gateway}].routes.${routeName(route)}.steps`;

/**
 * A valid config for the skeleton: a gateway with a dynamic route is authenticated and stores the
 * keys of the route's providers (BYOK); the Worker holds every other route's providers; every
 * secret is set. Then the mistakes, each where `pick` says, with the errors it causes.
 */
export function plantMistakes(skeleton: Skeleton, mistakes: readonly Mistake[]): PlantedConfig {
  const workerProviders = new Set<string>();
  const gateways = skeleton.gateways.map((gateway, gatewayIndex) => {
    const byok = new Set<string>();
    const routes: Record<string, Json> = {};
    gateway.routes.forEach((route, index) => {
      for (const step of route.steps) (route.dynamic ? byok : workerProviders).add(step.provider);
      routes[routeName(index)] = {
        ...(route.dynamic ? {} : { dynamic: false }),
        steps: route.steps.map((step) => ({ ...step })),
      };
    });
    const hasDynamic = gateway.routes.some((route) => route.dynamic);
    return {
      id: `gw-${gatewayIndex}`,
      authentication: hasDynamic,
      ...(byok.size > 0 ? { byok: { providers: [...byok].sort() } } : {}),
      routes,
    } as Json;
  });
  const byokAll = [
    ...new Set(gateways.flatMap((g) => ((g.byok as Json)?.providers as string[]) ?? [])),
  ];
  const input: Json = {
    accountId: "0123456789abcdef0123456789abcdef",
    gateways,
    ...(workerProviders.size > 0 ? { keys: { providers: [...workerProviders].sort() } } : {}),
  };
  const secrets: PlantedConfig["secrets"] = {
    ...(workerProviders.size > 0 ? { rotateToken: "test-rotate-token" } : {}),
    byokKeys: Object.fromEntries(byokAll.map((provider) => [provider, `test-key-${provider}`])),
  };
  const expected: string[] = [];
  const planted: MistakeKind[] = [];
  const pickOf = <T>(items: readonly T[], pick: number): T | undefined =>
    items.length === 0 ? undefined : items[pick % items.length];
  // Each kind touches its own field; mistakes on steps take different steps.
  const usedSteps = new Set<string>();
  const allSteps = skeleton.gateways.flatMap((gateway, g) =>
    gateway.routes.flatMap((route, r) =>
      route.steps.map((step, s) => ({ g, r, s, step, dynamic: route.dynamic })),
    ),
  );
  const freeStep = (pick: number, filter: (entry: (typeof allSteps)[number]) => boolean) => {
    const entry = pickOf(
      allSteps.filter(
        (candidate) =>
          filter(candidate) && !usedSteps.has(`${candidate.g}/${candidate.r}/${candidate.s}`),
      ),
      pick,
    );
    if (entry) usedSteps.add(`${entry.g}/${entry.r}/${entry.s}`);
    return entry;
  };
  const stepAt = (entry: { g: number; r: number; s: number }) =>
    ((gateways[entry.g]!.routes as Json)[routeName(entry.r)] as { steps: Json[] }).steps[entry.s]!;

  // Mistakes that reach into other steps' fields go first so step pickers do not collide.
  const order = [...mistakes].sort(
    (a, b) => mistakeKinds.indexOf(a.kind) - mistakeKinds.indexOf(b.kind),
  );
  for (const { kind, pick } of order) {
    switch (kind) {
      case "badAccountId":
        input.accountId = "not-an-account";
        expected.push("accountId");
        break;
      case "badCacheTtl": {
        const g = pick % gateways.length;
        gateways[g]!.cache = { ttl: 5 };
        expected.push(`gateways[${g}].cache.ttl`);
        break;
      }
      case "badRateTechnique": {
        const g = pick % gateways.length;
        gateways[g]!.rateLimit = { limit: 10, interval: 60, technique: "sliding-window" };
        expected.push(`gateways[${g}].rateLimit.technique`);
        break;
      }
      case "unknownStepField": {
        const entry = freeStep(pick, () => true);
        if (!entry) continue;
        stepAt(entry).tmeout = 5;
        expected.push(`${stepsPath(entry.g, entry.r)}[${entry.s}].tmeout`);
        break;
      }
      case "misspeltProvider": {
        // On a universal-only route, a step whose provider another step still uses, so the
        // provider keeps its key (and the Worker its rotate token) whatever else is planted.
        const entry = freeStep(
          pick,
          (candidate) =>
            !candidate.dynamic &&
            allSteps.some(
              (other) => other !== candidate && other.step.provider === candidate.step.provider,
            ),
        );
        if (!entry) continue;
        stepAt(entry).provider = `${entry.step.provider}x`;
        expected.push(`${stepsPath(entry.g, entry.r)}[${entry.s}].provider`);
        break;
      }
      case "duplicateKeyProvider": {
        const keys = input.keys as { providers: string[] } | undefined;
        if (!keys) continue;
        keys.providers.push(pickOf(keys.providers, pick)!);
        expected.push(`keys.providers[${keys.providers.length - 1}]`);
        break;
      }
      case "deadlineBelowTimeout": {
        const entry = freeStep(pick, (candidate) => !candidate.dynamic);
        if (!entry) continue;
        const route = (gateways[entry.g]!.routes as Json)[routeName(entry.r)] as Json;
        if (route.deadlineMs !== undefined) continue;
        route.deadlineMs = 1000;
        stepAt(entry).timeoutMs = 5000;
        expected.push(`${stepsPath(entry.g, entry.r)}[${entry.s}].timeoutMs`);
        break;
      }
      case "unauthenticatedDynamic": {
        const candidates = skeleton.gateways
          .map((gateway, g) => ({ gateway, g }))
          .filter(({ gateway }) => gateway.routes.some((route) => route.dynamic));
        const chosen = pickOf(candidates, pick);
        if (!chosen) continue;
        gateways[chosen.g]!.authentication = false;
        chosen.gateway.routes.forEach((route, r) => {
          if (route.dynamic) expected.push(`gateways[${chosen.g}].routes.${routeName(r)}`);
        });
        break;
      }
      case "missingByokKey": {
        const provider = pickOf(byokAll, pick);
        if (provider === undefined) continue;
        delete secrets.byokKeys[provider];
        expected.push(`byokKeys.${provider}`);
        break;
      }
      case "missingRotateToken":
        if (secrets.rotateToken === undefined) continue;
        delete secrets.rotateToken;
        expected.push("rotateToken");
        break;
      case "retiredModel": {
        // A model retired in 2020 on a step no other mistake touches; every step using it errs.
        const entry = freeStep(pick, () => true);
        if (!entry) continue;
        const key = `${entry.step.provider}/${entry.step.model}`;
        const users = allSteps.filter(
          (candidate) => `${candidate.step.provider}/${candidate.step.model}` === key,
        );
        if (users.some((user) => usedSteps.has(`${user.g}/${user.r}/${user.s}`) && user !== entry))
          continue;
        for (const user of users) usedSteps.add(`${user.g}/${user.r}/${user.s}`);
        input.models = {
          [key]: {
            input: 1,
            output: 1,
            retires: { date: "2020-01-01", replacement: "openai/gpt-4o" },
          },
        };
        for (const user of users) expected.push(`${stepsPath(user.g, user.r)}[${user.s}].model`);
        break;
      }
      case "unsendableGuardrail": {
        // A Guardrails category @pulumi/cloudflare 6.22.1 has no field for.
        const g = pick % gateways.length;
        gateways[g]!.guardrails = { prompt: { s14: "block" } };
        expected.push(`gateways[${g}].guardrails.prompt.s14`);
        break;
      }
      case "byokOnlyWithUnifiedBilling": {
        // On an authenticated gateway (so Unified Billing itself is fine), for a provider no step
        // uses (so no step's key changes): byokOnly forbids the fallback the gateway asks for.
        const authenticated = gateways.flatMap((gateway, g) =>
          gateway.authentication === true ? [g] : [],
        );
        const g = pickOf(authenticated, pick);
        if (g === undefined) continue;
        gateways[g]!.byokOnly = true;
        gateways[g]!.providerCredentials = {
          ...(gateways[g]!.providerCredentials as Json | undefined),
          grok: "unified-billing",
        };
        expected.push(`gateways[${g}].byokOnly`);
        break;
      }
      case "unifiedBillingUnauthenticated": {
        // Unified Billing needs an authenticated gateway; again for a provider no step uses.
        const open = gateways.flatMap((gateway, g) => (gateway.authentication !== true ? [g] : []));
        const g = pickOf(open, pick);
        if (g === undefined) continue;
        gateways[g]!.providerCredentials = {
          ...(gateways[g]!.providerCredentials as Json | undefined),
          "google-ai-studio": "unified-billing",
        };
        expected.push(`gateways[${g}].providerCredentials.google-ai-studio`);
        break;
      }
    }
    planted.push(kind);
  }
  return { input, secrets, expectedErrors: expected, planted };
}

/** The input with its secrets as a stack file's `secure:` values (what validate reads). */
export function withSecureValues(planted: PlantedConfig): Json {
  const secure = (value: string) => ({
    secure: `v1:dGVzdA==:${Buffer.from(value).toString("base64")}`,
  });
  const byok = Object.entries(planted.secrets.byokKeys);
  return {
    ...planted.input,
    ...(planted.secrets.rotateToken === undefined
      ? {}
      : { rotateToken: secure(planted.secrets.rotateToken) }),
    ...(byok.length === 0
      ? {}
      : { byokKeys: Object.fromEntries(byok.map(([provider, key]) => [provider, secure(key)])) }),
  };
}
