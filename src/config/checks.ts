/**
 * @module
 * Checks that span several fields of a config, reported with the path of the field to fix.
 * Field-level rules live in the schema. These run on the raw input too, even when some fields
 * are invalid, so a user sees every problem in one pass; they skip whatever is not the right
 * shape (the schema reports that).
 */
import type { z } from "zod";
import { findGatewayCredentialProblems, stepCredentialProblem } from "./credential-checks.ts";
import type { CredentialSettings } from "./credential-paths.ts";
import { findPolicyProblems } from "./policy-checks.ts";

type Issue = { message: string; path: PropertyKey[] };
type Loose = Record<string, unknown>;

const asObject = (value: unknown): Loose =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Loose) : {};
const asArray = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
const asString = (value: unknown): string | undefined =>
  typeof value === "string" ? value : undefined;
const asNumber = (value: unknown): number | undefined =>
  typeof value === "number" ? value : undefined;

/** Cross-field problems in a config (parsed or raw); every one, not only the first. */
export function findConfigProblems(input: unknown): Issue[] {
  const config = asObject(input);
  const issues: Issue[] = [];
  const keyProviders = asArray(asObject(config.keys).providers).map(asString);
  const workerProviders = new Set(keyProviders);

  keyProviders.forEach((provider, index) => {
    if (provider !== undefined && keyProviders.indexOf(provider) !== index) {
      issues.push({
        path: ["keys", "providers", index],
        message: `provider "${provider}" is listed twice; remove the duplicate`,
      });
    }
  });

  for (const [model, priceValue] of Object.entries(asObject(config.models))) {
    const replacement = asString(asObject(asObject(priceValue).retires).replacement);
    if (replacement === model) {
      issues.push({
        path: ["models", model, "retires", "replacement"],
        message: `${model} cannot replace itself: name the model that takes over from it, e.g. a newer version`,
      });
    }
  }

  for (const provider of Object.keys(asObject(asObject(config.keys).caps))) {
    if (!workerProviders.has(provider)) {
      issues.push({
        path: ["keys", "caps", provider],
        message: `caps are for keys the companion Worker holds, and "${provider}" is not in keys.providers: add it there or remove this entry`,
      });
    }
  }

  const seenGateways = new Map<string, number>();
  asArray(config.gateways).forEach((gatewayValue, gatewayIndex) => {
    const gateway = asObject(gatewayValue);
    const id = asString(gateway.id);
    const earlier = id === undefined ? undefined : seenGateways.get(id);
    if (id !== undefined && earlier !== undefined) {
      issues.push({
        path: ["gateways", gatewayIndex, "id"],
        message: `gateway id "${id}" is already used by gateways[${earlier}]; gateway ids must be unique`,
      });
    } else if (id !== undefined) {
      seenGateways.set(id, gatewayIndex);
    }
    const ruleIds = asArray(gateway.spendLimits).map((rule) => asString(asObject(rule).id));
    ruleIds.forEach((ruleId, ruleIndex) => {
      if (ruleId !== undefined && ruleIds.indexOf(ruleId) !== ruleIndex) {
        issues.push({
          path: ["gateways", gatewayIndex, "spendLimits", ruleIndex, "id"],
          message: `spend limit id "${ruleId}" is used twice in this gateway; give each rule its own id`,
        });
      }
    });
    const byokList = asArray(asObject(gateway.byok).providers).map(asString);
    byokList.forEach((provider, index) => {
      if (provider !== undefined && byokList.indexOf(provider) !== index) {
        issues.push({
          path: ["gateways", gatewayIndex, "byok", "providers", index],
          message: `provider "${provider}" is listed twice in byok.providers; remove the duplicate`,
        });
      }
    });
    const credentialSettings: CredentialSettings = {
      gatewayPath: asString(gateway.credentials),
      providerPaths: asObject(gateway.providerCredentials),
      byokProviders: new Set(byokList),
      workerProviders,
    };
    issues.push(...findGatewayCredentialProblems(gateway, gatewayIndex, credentialSettings));
    for (const [routeName, routeValue] of Object.entries(asObject(gateway.routes))) {
      const route = Array.isArray(routeValue) ? { steps: routeValue } : asObject(routeValue);
      const deadlineMs = asNumber(route.deadlineMs);
      const routePath = ["gateways", gatewayIndex, "routes", routeName];
      const chains: [string, unknown, PropertyKey[]][] = [
        ["steps", route.steps, [...routePath, "steps"]],
        ...Object.entries(asObject(route.chains)).map(
          ([name, steps]): [string, unknown, PropertyKey[]] => [
            `chain "${name}"`,
            steps,
            [...routePath, "chains", name],
          ],
        ),
      ];
      for (const [chainLabel, stepsValue, stepsPath] of chains) {
        const where = chainLabel === "steps" ? "" : ` of ${chainLabel}`;
        const seenSteps = new Map<string, number>();
        asArray(stepsValue).forEach((stepValue, stepIndex) => {
          const step = asObject(stepValue);
          const provider = asString(step.provider);
          const model = asString(step.model);
          const timeoutMs = asNumber(step.timeoutMs);
          if (provider === undefined) return;
          const identity = `${provider}/${model}`;
          const firstIndex = seenSteps.get(identity);
          if (model !== undefined && firstIndex !== undefined) {
            issues.push({
              path: [...stepsPath, stepIndex, "model"],
              message: `${identity} is already step ${firstIndex}${where} of route "${routeName}"; a fallback to the same provider and model adds nothing, so remove it or give step ${firstIndex} retries`,
            });
          } else if (model !== undefined) {
            seenSteps.set(identity, stepIndex);
          }
          const keyProblem = stepCredentialProblem(provider, credentialSettings, gatewayIndex);
          if (keyProblem !== undefined) {
            issues.push({ path: [...stepsPath, stepIndex, "provider"], message: keyProblem });
          }
          if (deadlineMs !== undefined && timeoutMs !== undefined && timeoutMs > deadlineMs) {
            issues.push({
              path: [...stepsPath, stepIndex, "timeoutMs"],
              message: `timeoutMs ${timeoutMs} is longer than the route's deadlineMs ${deadlineMs}; lower the step timeout or raise the deadline`,
            });
          }
        });
      }
      issues.push(...findPolicyProblems(route, routeName, routePath));
    }
  });
  return issues;
}

/** zod `superRefine` hook: adds every cross-field problem as an issue. */
export function checkConfig(config: unknown, context: z.RefinementCtx): void {
  for (const issue of findConfigProblems(config)) {
    context.addIssue({ code: "custom", message: issue.message, path: issue.path });
  }
}
