/**
 * @module
 * A plan as a reviewer reads it: each component with the Cloudflare resources it would create
 * under it, and each resource's inputs, one per line. A route's elements are its graph, one
 * element per line with where each output goes; the Worker's bindings, one per line with their
 * type. What every resource repeats (the account id) is said once, in the heading; a dynamic
 * resource's serialized provider is left out (it is code).
 */
import type { PlannedResource, StackPlan } from "./plan.ts";

/**
 * The plan as text, ending with a newline.
 * @example
 * process.stdout.write(formatPlan(await planStack({ stack: "dev" })));
 */
export function formatPlan(plan: StackPlan): string {
  const accounts = [
    ...new Set(
      plan.resources
        .map((resource) => resource.inputs.accountId)
        .filter((id): id is string => typeof id === "string"),
    ),
  ];
  const lines = [
    `Plan for stack ${plan.stack} (${plan.source}), run under mocks: nothing was created.`,
    ...(accounts.length > 0 ? [`Account: ${accounts.join(", ")}`] : []),
    "",
  ];
  for (const resource of ordered(plan.resources)) {
    const depth = depthOf(resource, plan.resources);
    const indent = "  ".repeat(depth);
    lines.push(`${indent}+ ${resource.type} ${resource.name}`);
    for (const line of inputLines(resource)) lines.push(`${indent}    ${line}`);
  }
  const components = plan.resources.filter((resource) => resource.component).length;
  lines.push(
    "",
    `${plan.resources.length} resources to create: ${components} components, ${plan.resources.length - components} Cloudflare resources.`,
  );
  for (const warning of plan.warnings) lines.push(`warning: ${warning}`);
  return `${lines.join("\n")}\n`;
}

/** Each top-level resource in registration order, followed by its children, by name. */
export function ordered(resources: readonly PlannedResource[]): PlannedResource[] {
  const result: PlannedResource[] = [];
  const visit = (parent: string | undefined) => {
    const children = resources.filter((resource) => resource.parent === parent);
    const sorted = parent === undefined ? children : [...children].sort(byName);
    for (const child of sorted) {
      result.push(child);
      visit(child.name);
    }
  };
  visit(undefined);
  return result;
}

function byName(a: PlannedResource, b: PlannedResource): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

function depthOf(resource: PlannedResource, all: readonly PlannedResource[]): number {
  let depth = 0;
  let parent = resource.parent;
  while (parent !== undefined && depth < 10) {
    depth++;
    parent = all.find((candidate) => candidate.name === parent)?.parent;
  }
  return depth;
}

function inputLines(resource: PlannedResource): string[] {
  const lines: string[] = [];
  for (const [key, value] of Object.entries(resource.inputs)) {
    if (key === "accountId") continue;
    if (key === "elements" && Array.isArray(value)) {
      lines.push("elements:", ...value.map((element) => `  ${elementLine(element)}`));
    } else if (key === "elementsJson" && typeof value === "string") {
      const elements = JSON.parse(value) as unknown[];
      lines.push("elements:", ...elements.map((element) => `  ${elementLine(element)}`));
    } else if (key === "spendLimits" && isRuleList(value)) {
      lines.push("spendLimits:", ...value.rules.map((rule) => `  ${spendRuleLine(rule)}`));
    } else if (key === "otels" && Array.isArray(value)) {
      lines.push("otels:", ...value.map((exporter) => `  ${otelLine(exporter)}`));
    } else if (key === "bindings" && Array.isArray(value)) {
      lines.push("bindings:", ...value.map((binding) => `  ${bindingLine(binding)}`));
    } else {
      lines.push(`${key}: ${scalar(value)}`);
    }
  }
  return lines;
}

interface Element {
  id?: string;
  type?: string;
  properties?: Record<string, unknown>;
  outputs?: Record<string, { elementId?: string }>;
}

/** `model-0 model anthropic/claude-sonnet-4-5 timeout=15000 retries=1 → success: end, fallback: model-1` */
function elementLine(raw: unknown): string {
  const element = raw as Element;
  const properties = { ...element.properties };
  const provider =
    properties.aiGatewayDynamicRoutingProvider ?? properties.provider ?? properties.model_provider;
  delete properties.aiGatewayDynamicRoutingProvider;
  delete properties.provider;
  const model = properties.model;
  delete properties.model;
  const what =
    model === undefined ? "" : ` ${provider === undefined ? "" : `${String(provider)}/`}${model}`;
  const settings = Object.entries(properties).map(([key, value]) => ` ${key}=${scalar(value)}`);
  const outputs = Object.entries(element.outputs ?? {}).map(
    ([port, target]) => `${port}: ${target.elementId ?? "?"}`,
  );
  const arrow = outputs.length > 0 ? ` → ${outputs.join(", ")}` : "";
  return `${element.id ?? "?"} ${element.type ?? "?"}${what}${settings.join("")}${arrow}`;
}

function isRuleList(value: unknown): value is { enabled: boolean; rules: unknown[] } {
  const rules = (value as { rules?: unknown } | null)?.rules;
  return Array.isArray(rules) && rules.length > 0;
}

interface Dimension {
  mode?: string;
  values?: unknown[];
}

/** `per-agent cost 5 per 86400s sliding provider=openai metadata.agent_id=split` */
function spendRuleLine(raw: unknown): string {
  const rule = raw as Record<string, unknown>;
  const dimension = (name: string, value: unknown) => {
    const { mode, values } = (value ?? {}) as Dimension;
    return ` ${name}=${mode === "partition" ? "split" : (values ?? []).join(",")}`;
  };
  const parts = [
    `${String(rule.id)} ${String(rule.limitType)} ${String(rule.limit)} per ${String(rule.window)}s ${String(rule.technique ?? "")}`.trimEnd(),
  ];
  if (rule.aiGatewayProvider !== undefined)
    parts.push(dimension("provider", rule.aiGatewayProvider));
  if (rule.model !== undefined) parts.push(dimension("model", rule.model));
  for (const [key, value] of Object.entries((rule.metadata ?? {}) as Record<string, unknown>)) {
    parts.push(dimension(`metadata.${key}`, value));
  }
  return parts.join("");
}

/** `https://otel.example.com/v1/traces json headers=x-team` (header values are not shown). */
function otelLine(raw: unknown): string {
  const { url, contentType, headers, authorization } = raw as Record<string, unknown>;
  const names = Object.keys((headers ?? {}) as Record<string, unknown>);
  const extra = [
    names.length > 0 ? ` headers=${names.join(",")}` : "",
    authorization === undefined ? "" : ` authorization=${String(authorization)}`,
  ];
  return `${String(url)} ${String(contentType ?? "json")}${extra.join("")}`;
}

/** `ROTATE_TOKEN secret_text [secret]`, `KEYS kv_namespace namespaceId=key-vault-kv-id` */
function bindingLine(raw: unknown): string {
  const { name, type, text, ...rest } = raw as Record<string, unknown>;
  const value = text === undefined ? "" : ` ${truncated(String(text))}`;
  const extra = Object.entries(rest).map(([key, member]) => ` ${key}=${scalar(member)}`);
  return `${String(name)} ${String(type)}${value}${extra.join("")}`;
}

function scalar(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}

/** Long texts (the Worker's config view) are shown by their size: `--json` has them whole. */
function truncated(text: string): string {
  return text.length <= 120 ? text : `(${text.length} bytes; --json prints it)`;
}
