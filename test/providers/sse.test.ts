import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { StepwiseError } from "../../src/errors/index.ts";
import { formatSseEvent, parseSseStream } from "../../src/providers/sse.ts";
import type { SseEvent } from "../../src/providers/types.ts";
import { splitAt, streamOf } from "./helpers.ts";

const encoder = new TextEncoder();

async function parseChunks(chunks: readonly string[] | readonly Uint8Array[]): Promise<SseEvent[]> {
  const bytes = chunks.map((chunk) => (typeof chunk === "string" ? encoder.encode(chunk) : chunk));
  const events: SseEvent[] = [];
  for await (const event of parseSseStream(streamOf(bytes))) events.push(event);
  return events;
}

describe("parseSseStream", () => {
  it("reads data events, named events and multi-line data", async () => {
    const text = 'data: {"a":1}\n\nevent: message_stop\ndata: first\ndata: second\n\n';
    expect(await parseChunks([text])).toStrictEqual([
      { data: '{"a":1}' },
      { event: "message_stop", data: "first\nsecond" },
    ]);
  });

  it("accepts CRLF and CR line ends", async () => {
    expect(await parseChunks(["event: a\r\ndata: 1\r\n\r\ndata: 2\r\rdata: 3\n\n"])).toStrictEqual([
      { event: "a", data: "1" },
      { data: "2" },
      { data: "3" },
    ]);
  });

  it("keeps the event name when a CRLF pair is split across chunks", async () => {
    expect(await parseChunks(["event: delta\r", "\ndata: x\r", "\n\r", "\n"])).toStrictEqual([
      { event: "delta", data: "x" },
    ]);
  });

  it("ignores comments, id, retry and unknown fields", async () => {
    const text =
      ": OPENROUTER PROCESSING\n\nid: 7\nretry: 1000\nfoo: bar\n: keep-alive\ndata: x\n\n";
    expect(await parseChunks([text])).toStrictEqual([{ data: "x" }]);
  });

  it("removes exactly one leading space and reads fields without a colon", async () => {
    const text = "data:no-space\n\ndata:  two spaces\n\ndata\n\ndata:\n\n";
    expect(await parseChunks([text])).toStrictEqual([
      { data: "no-space" },
      { data: " two spaces" },
      { data: "" },
      { data: "" },
    ]);
  });

  it("does not dispatch an event without data, and resets its name", async () => {
    expect(await parseChunks(["event: ping\n\ndata: after\n\n"])).toStrictEqual([
      { data: "after" },
    ]);
  });

  it("discards an event the stream's end cuts off before its blank line (WHATWG)", async () => {
    expect(await parseChunks(["data: one\n\ndata: [DONE]"])).toStrictEqual([{ data: "one" }]);
    expect(await parseChunks(["event: end\ndata: two\n"])).toStrictEqual([]);
    // A CR at the very end is a whole line end: the blank line is complete.
    expect(await parseChunks(["data: three\r\r"])).toStrictEqual([{ data: "three" }]);
  });

  it("decodes UTF-8 characters split across chunks and skips a leading BOM", async () => {
    const bytes = encoder.encode("\uFEFFdata: Città ☀️\n\n");
    const events = await parseChunks(Array.from(bytes, (byte) => Uint8Array.of(byte)));
    expect(events).toStrictEqual([{ data: "Città ☀️" }]);
  });

  it("cancels the body when the reader stops early", async () => {
    let cancelled = false;
    const body = new ReadableStream<Uint8Array>({
      pull: (controller) => controller.enqueue(encoder.encode("data: tick\n\n")),
      cancel: () => {
        cancelled = true;
      },
    });
    for await (const event of parseSseStream(body)) {
      expect(event.data).toBe("tick");
      break;
    }
    expect(cancelled).toBe(true);
  });

  it("passes on a read failure (a dropped connection)", async () => {
    let pulls = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulls += 1;
        if (pulls === 1) controller.enqueue(encoder.encode("data: partial\n\n"));
        else controller.error(new TypeError("network connection lost"));
      },
    });
    const events: SseEvent[] = [];
    await expect(async () => {
      for await (const event of parseSseStream(body)) events.push(event);
    }).rejects.toThrow("network connection lost");
    expect(events).toStrictEqual([{ data: "partial" }]);
  });
});

describe("formatSseEvent", () => {
  it("writes the event name, one data line per line and a blank line", () => {
    expect(formatSseEvent({ event: "message_stop", data: '{"type":"message_stop"}' })).toBe(
      'event: message_stop\ndata: {"type":"message_stop"}\n\n',
    );
    expect(formatSseEvent({ data: "a\nb\r\nc" })).toBe("data: a\ndata: b\ndata: c\n\n");
    expect(formatSseEvent({ data: "" })).toBe("data: \n\n");
  });

  it("rejects an event name with a line break", () => {
    expect(() => formatSseEvent({ event: "a\nb", data: "x" })).toThrow(StepwiseError);
  });
});

describe("format then parse (property)", () => {
  const text = fc.string({
    unit: fc.oneof(
      fc.constantFrom("\n", "\r", "\r\n", ":", " ", "é", "☀️", "😀", "data: ", "event: "),
      fc.string({ unit: "grapheme-ascii", minLength: 1, maxLength: 1 }),
    ),
    maxLength: 40,
  });
  const eventName = fc.option(
    text.map((name) => name.replace(/[\r\n]/g, "")),
    { nil: undefined },
  );
  const event = fc.record({ event: eventName, data: text });
  const lineEnd = fc.constantFrom("\n", "\r\n", "\r");

  it("gives back every event, whatever the line ends, comments and chunk boundaries", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(event, { maxLength: 8 }),
        lineEnd,
        fc.array(fc.integer({ min: 0, max: 2000 }), { maxLength: 30 }),
        fc.boolean(),
        async (events, ending, cuts, withComments) => {
          const wire = events
            .map((item) => {
              const formatted = formatSseEvent(
                item.event === undefined ? { data: item.data } : item,
              );
              return withComments ? `: keep-alive\n${formatted}` : formatted;
            })
            .join("")
            .replace(/\n/g, ending);
          const parsed = await parseChunks(splitAt(encoder.encode(wire), cuts));
          const expected = events.map(({ event: name, data }) => {
            const normalised = data.replace(/\r\n|\r/g, "\n");
            return name === undefined || name === ""
              ? { data: normalised }
              : { event: name, data: normalised };
          });
          expect(parsed).toStrictEqual(expected);
        },
      ),
      { numRuns: 300 },
    );
  });
});
