/**
 * @module
 * Reads a gateway's log records page by page, oldest first, resumably. Instead of page numbers
 * (which shift when the gateway deletes its oldest records or new ones arrive), each request
 * asks for the records after a cursor: the `created_at` of the last record read (`gt` one
 * millisecond before it, dropping the ids already read at that instant). A page that fails after
 * the SDK's own retries is asked again from the same cursor, up to `pageRetries` times, so a long
 * pull never starts over. The window's end is fixed when the pull starts, so records written
 * during it do not keep it going. Memory holds one page and the ids at the cursor's instant.
 */

/** Where a pull stands: hand it back to continue after the last record read. */
export interface LogCursor {
  /** `created_at` of the last record read (epoch ms). */
  readonly time: number;
  /** Ids of the records read at exactly `time`. */
  readonly ids: readonly string[];
}

/** One page request: records with `created_at` in (after, before), oldest first. */
export interface LogPageRequest {
  readonly after: number | null;
  readonly before: number;
  readonly page: number;
}

/** A record as paging needs it. */
export interface PagedRecord {
  readonly id: string;
  readonly created_at: string;
}

export interface LogPagingOptions {
  /** Records per request. */
  readonly perPage: number;
  /** Read records from this time (inclusive) … */
  readonly since: number | null;
  /** … up to this time (exclusive). */
  readonly until: number;
  /** Continue a pull from here instead of `since`. */
  readonly resumeFrom?: LogCursor;
  /** Extra tries of a failing page (default 3), waiting 1 s, 2 s, 4 s. */
  readonly pageRetries?: number;
  readonly sleep?: (milliseconds: number) => Promise<void>;
  /** Whether a failure is worth another try (default: any). */
  readonly isRetryable?: (error: unknown) => boolean;
  /** Called after each page with the cursor reached. */
  readonly onPage?: (cursor: LogCursor | null, records: number) => void;
}

/** Yields every record once, oldest first, fetching pages with `fetchPage`. */
export async function* pagedRecords<Record extends PagedRecord>(
  fetchPage: (request: LogPageRequest) => Promise<unknown[]>,
  options: LogPagingOptions,
): AsyncGenerator<unknown> {
  let cursor: LogCursor | null = options.resumeFrom ?? null;
  let page = 1;
  let read = 0;
  const sleep =
    options.sleep ??
    ((milliseconds: number) => new Promise<void>((resolve) => setTimeout(resolve, milliseconds)));
  for (;;) {
    const after = cursor ? cursor.time - 1 : options.since === null ? null : options.since - 1;
    const request = { after, before: options.until, page };
    let records: unknown[];
    for (let attempt = 0; ; attempt += 1) {
      try {
        records = await fetchPage(request);
        break;
      } catch (error) {
        if (attempt >= (options.pageRetries ?? 3)) throw error;
        if (options.isRetryable && !options.isRetryable(error)) throw error;
        await sleep(1000 * 2 ** attempt);
      }
    }
    const seen = new Set(cursor?.ids ?? []);
    const startTime = cursor?.time ?? null;
    for (const record of records) {
      const { id, created_at } = record as Record;
      const time = Date.parse(created_at);
      if (typeof id !== "string" || Number.isNaN(time)) {
        yield record; // malformed: the caller counts it
        continue;
      }
      if (cursor && time === cursor.time && seen.has(id)) continue;
      if (cursor && time < cursor.time) continue;
      cursor =
        cursor && time === cursor.time ? { time, ids: [...cursor.ids, id] } : { time, ids: [id] };
      seen.add(id);
      read += 1;
      yield record;
    }
    options.onPage?.(cursor, read);
    if (records.length < options.perPage) return;
    // Past a page of records all at one instant, the cursor cannot move: ask for the next page.
    page = cursor?.time === startTime ? page + 1 : 1;
  }
}
