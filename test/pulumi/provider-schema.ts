/**
 * @module
 * Checks resource inputs against `@pulumi/cloudflare`'s own type declarations: every property
 * name (at any depth) and every `ignoreChanges` name must exist in the resource's `…Args` type.
 * Read with TypeScript's checker from the installed package, so a name the provider does not
 * define fails here however the inputs were built (spreads, casts, strings).
 */
import { createRequire } from "node:module";
import path from "node:path";
import ts from "typescript";

const packageRoot = path.dirname(
  createRequire(import.meta.url).resolve("@pulumi/cloudflare/package.json"),
);

/** `cloudflare:index/aiGateway:AiGateway` → `aiGateway.d.ts` and `AiGatewayArgs`. */
function declarationOf(token: string): { file: string; args: string } {
  const match = /^cloudflare:index\/([A-Za-z0-9]+):([A-Za-z0-9]+)$/.exec(token);
  if (!match) throw new Error(`not a @pulumi/cloudflare resource token: ${token}`);
  return { file: path.join(packageRoot, `${match[1]}.d.ts`), args: `${match[2]}Args` };
}

export class ProviderSchema {
  readonly #program: ts.Program;
  readonly #checker: ts.TypeChecker;

  constructor(tokens: readonly string[]) {
    const files = [...new Set(tokens.map((token) => declarationOf(token).file))];
    this.#program = ts.createProgram(files, {
      noEmit: true,
      skipLibCheck: true,
      types: [],
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
    });
    this.#checker = this.#program.getTypeChecker();
  }

  /** The property names of a resource's Args type (what `ignoreChanges` may name). */
  argsProperties(token: string): string[] {
    return this.#checker.getPropertiesOfType(this.#argsType(token)).map((symbol) => symbol.name);
  }

  /**
   * Every property of `inputs` (at any depth, into arrays and nested objects) that the resource's
   * Args type does not define, as paths like `bindings[0].namespaceID`.
   */
  unknownProperties(token: string, inputs: unknown): string[] {
    const problems: string[] = [];
    this.#walk(inputs, this.#argsType(token), "", problems);
    return problems;
  }

  #argsType(token: string): ts.Type {
    const { file, args } = declarationOf(token);
    const source = this.#program.getSourceFile(file);
    if (!source) throw new Error(`cannot read ${file}`);
    const moduleSymbol = this.#checker.getSymbolAtLocation(source);
    const symbol = moduleSymbol
      ? this.#checker.getExportsOfModule(moduleSymbol).find((entry) => entry.name === args)
      : undefined;
    if (!symbol) throw new Error(`${file} does not export ${args}`);
    return this.#checker.getDeclaredTypeOfSymbol(symbol);
  }

  #walk(value: unknown, type: ts.Type, where: string, problems: string[]): void {
    if (value === null || value === undefined || typeof value !== "object") return;
    if (isPulumiValue(value)) return; // an Output or Promise: its shape is checked by tsc only
    const shapes = this.#shapes(type);
    if (Array.isArray(value)) {
      const elements = shapes.flatMap((shape) => {
        const element = this.#checker.getIndexTypeOfType(shape, ts.IndexKind.Number);
        return element ? [element] : [];
      });
      value.forEach((item, index) => {
        for (const element of elements.slice(0, 1)) {
          this.#walk(item, element, `${where}[${index}]`, problems);
        }
      });
      return;
    }
    for (const [key, member] of Object.entries(value)) {
      // A resource's props also hold its output names, unset: only what is set is an input.
      if (member === undefined) continue;
      const property = shapes
        .map((shape) => this.#checker.getPropertyOfType(shape, key))
        .find((found) => found !== undefined);
      const at = where === "" ? key : `${where}.${key}`;
      if (!property) {
        problems.push(at);
        continue;
      }
      this.#walk(member, this.#checker.getNonNullableType(this.#typeOf(property)), at, problems);
    }
  }

  #typeOf(symbol: ts.Symbol): ts.Type {
    const declaration = symbol.valueDeclaration ?? symbol.declarations?.[0];
    return declaration
      ? this.#checker.getTypeOfSymbolAtLocation(symbol, declaration)
      : this.#checker.getDeclaredTypeOfSymbol(symbol);
  }

  /** The object (or array) types a value of `type` may have: `Input<T>` unwrapped to `T`. */
  #shapes(type: ts.Type): ts.Type[] {
    const parts = type.isUnion() ? type.types : [type];
    return parts.filter((part) => {
      if (!(part.flags & ts.TypeFlags.Object)) return false;
      const name = part.getSymbol()?.getName() ?? "";
      return name !== "Promise" && name !== "OutputInstance" && name !== "Output";
    });
  }
}

function isPulumiValue(value: object): boolean {
  return (
    typeof (value as { then?: unknown }).then === "function" ||
    (value as { __pulumiOutput?: unknown }).__pulumiOutput === true
  );
}
