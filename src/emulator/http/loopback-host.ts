/**
 * @module
 * The `Host` a request to the emulator may carry: a loopback name (`127.0.0.1`, `localhost`,
 * `[::1]`), with or without a port. The emulator listens on 127.0.0.1 only, but a web page can
 * still reach it through DNS rebinding (a name of the page's that later resolves to 127.0.0.1); the
 * browser then sends the page's own name as `Host`, which this check refuses. Any port is
 * accepted, so a local port forward still works; the defence is the name.
 */

/** `localhost`, `127.0.0.1` or `[::1]`, then an optional `:port`, case-insensitively. */
const loopbackHost = /^(?:localhost|127\.0\.0\.1|\[::1\])(?::\d{1,5})?$/i;

/**
 * Whether `host` (the request's `Host` header) names this machine's loopback interface.
 * @example isLoopbackHost("127.0.0.1:8787") // true
 * @example isLoopbackHost("rebind.attacker.example:8787") // false
 */
export function isLoopbackHost(host: string | undefined): boolean {
  return host !== undefined && loopbackHost.test(host);
}
