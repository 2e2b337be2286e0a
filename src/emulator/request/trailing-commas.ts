/**
 * @module
 * Trailing commas in a JSON text (`{"a": 1,}`), which Cloudflare's own universal-endpoint examples
 * contain (configuration/request-handling.mdx: `"config": {...},\n}`): removed outside strings,
 * so those examples run as written. Used only after `JSON.parse` refused a body, so valid bodies
 * pay nothing (the emulator's choice, in docs/emulator.md).
 */

/** The text without commas that only precede a `}` or `]` (whitespace between allowed). */
export function withoutTrailingCommas(text: string): string {
  let out = "";
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const character = text[index]!;
    if (inString) {
      out += character;
      if (character === "\\") {
        out += text[index + 1] ?? "";
        index++;
      } else if (character === '"') inString = false;
      continue;
    }
    if (character === '"') inString = true;
    else if (character === ",") {
      let next = index + 1;
      while (next < text.length && /\s/.test(text[next]!)) next++;
      if (text[next] === "}" || text[next] === "]") continue;
    }
    out += character;
  }
  return out;
}
