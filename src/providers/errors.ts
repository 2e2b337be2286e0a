/**
 * @module
 * Errors thrown by the provider adapters. Both extend `StepwiseError`, so callers can switch on
 * `code` and use `StepwiseError.isInstance` across package copies.
 */

import { StepwiseError } from "../errors/index.ts";

/** Options for {@link UnknownProviderError}. */
export interface UnknownProviderErrorOptions {
  /** The slug that was asked for. */
  readonly slug: string;
  /** The built-in slugs, listed in the message. */
  readonly knownSlugs: readonly string[];
  /** A built-in slug the caller probably meant, if one is close. */
  readonly suggestion?: string;
}

/** A provider slug that is neither built in nor a valid `custom-<slug>`. Code `unknown_provider`. */
export class UnknownProviderError extends StepwiseError {
  static override readonly kind: string = "stepwise.UnknownProviderError";
  readonly slug: string;

  constructor({ slug, knownSlugs, suggestion }: UnknownProviderErrorOptions) {
    const hint = suggestion === undefined ? "" : ` Did you mean "${suggestion}"?`;
    super({
      code: "unknown_provider",
      message:
        `Unknown provider "${slug}".${hint} Known providers: ${knownSlugs.join(", ")}. ` +
        "Custom OpenAI-compatible providers are written custom-<slug> (lowercase letters, " +
        "digits and hyphens, e.g. custom-acme).",
    });
    this.name = "UnknownProviderError";
    this.slug = slug;
  }
}

/** Options for {@link ProviderResponseError}. */
export interface ProviderResponseErrorOptions {
  /** The provider slug whose response could not be read. */
  readonly provider: string;
  /** What was wrong with the body. */
  readonly message: string;
  readonly cause?: unknown;
}

/**
 * A successful (2xx) response whose body is empty, not JSON, or not in the provider's format.
 * Code `invalid_provider_response`. Usually the upstream URL points at the wrong server, or a
 * proxy answered instead of the provider.
 */
export class ProviderResponseError extends StepwiseError {
  static override readonly kind: string = "stepwise.ProviderResponseError";
  readonly provider: string;

  constructor({ provider, message, cause }: ProviderResponseErrorOptions) {
    super({ code: "invalid_provider_response", message, cause });
    this.name = "ProviderResponseError";
    this.provider = provider;
  }
}
