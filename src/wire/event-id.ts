/**
 * @module
 * The longest `cf-aig-event-id` the gateway takes. Cloudflare's docs give none (the header
 * glossary: "cf-aig-event-id is a unique identifier for an event, used to trace specific events
 * through the system"), so 256 characters is the emulator's guess (docs/emulator.md, "Bad
 * `cf-aig-*` value"). The emulator refuses a longer id; the companion Worker, which sends an app's
 * id upstream as `<app id>:<id>`, refuses one that would be longer once prefixed, so the app hears
 * its own limit instead of the gateway's refusal of an id it never wrote.
 */

/** The longest event id the gateway takes, in characters (a guess: no documented limit). */
export const maxEventIdChars = 256;

/** The event id as sent upstream for an app: `<app id>:<id>`. */
export function appScopedEventId(appId: string, eventId: string): string {
  return `${appId}:${eventId}`;
}

/** The longest id the app `appId` may send: the gateway's limit less the `<app id>:` prefix. */
export function maxAppEventIdChars(appId: string): number {
  return Math.max(0, maxEventIdChars - appScopedEventId(appId, "").length);
}

/**
 * The app's own event id from one the Worker sent upstream for the app `appId` (the gateway's
 * logs and the Worker's Analytics Engine points keep the prefixed one): `<app id>:` taken off, so
 * every source names a call by the id the app's client recorded. An id without the prefix (no
 * Worker in front, or no app known) is returned as it is.
 */
export function appOwnEventId(appId: string | null | undefined, eventId: string): string {
  if (!appId) return eventId;
  const prefix = appScopedEventId(appId, "");
  return eventId.startsWith(prefix) ? eventId.slice(prefix.length) : eventId;
}
