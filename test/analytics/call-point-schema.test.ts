import { describe, expect, it } from "vitest";
import { decodeCallRow } from "../../src/worker/analytics-row.ts";
import {
  type CallPoint,
  callPointColumns,
  callPointSchemaVersion,
  encodeCallPoint,
} from "../../src/worker/analytics-schema.ts";

const point: CallPoint = {
  gateway: "chat-prod",
  route: "default",
  provider: "openai",
  model: "gpt-4o-mini",
  errorCode: null,
  cacheStatus: "MISS",
  app: "app_1",
  mode: "universal",
  keySource: "current",
  eventId: "01JADMCQQQBWH3NXZ5GCRN98DP",
  metadata: { app: "app_1", tier: "simple", plan: "free", route: "default" },
  step: 1,
  status: 200,
  latencyMs: 41.6,
  ok: true,
  tokensIn: 12,
  tokensOut: 30,
  cost: 0.0000198,
  attempt: 2,
};

/** What the SQL API answers for a written point: columns by name, plus timestamp. */
function asRow(encoded: ReturnType<typeof encodeCallPoint>, extra: Record<string, unknown> = {}) {
  return {
    timestamp: "2026-11-30 12:00:01",
    index1: encoded.indexes[0],
    ...Object.fromEntries(encoded.blobs.map((blob, index) => [`blob${index + 1}`, blob])),
    ...Object.fromEntries(encoded.doubles.map((value, index) => [`double${index + 1}`, value])),
    ...extra,
  };
}

describe("the Analytics Engine call point", () => {
  it("reads back what the Worker writes, field for field", () => {
    const decoded = decodeCallRow(asRow(encodeCallPoint(point)));
    expect(decoded).toEqual({
      ok: true,
      time: Date.parse("2026-11-30T12:00:01Z"),
      weight: 1,
      point: {
        ...point,
        latencyMs: 42,
        metadata: { app: "app_1", plan: "free", route: "default", tier: "simple" },
      },
    });
  });

  it("writes the app in blob7 only, and reads it back as the app metadata entry too", () => {
    const encoded = encodeCallPoint(point);
    expect(encoded.blobs[6]).toBe("app_1");
    expect(encoded.blobs.slice(10)).toEqual(["plan=free", "route=default", "tier=simple"]);
    // A row of a writer that repeated it among the metadata blobs reads the same.
    const old = asRow(encoded, {
      blob11: "app=app_1",
      blob12: "plan=free",
      blob13: "route=default",
      blob14: "tier=simple",
    });
    expect(decodeCallRow(old)).toEqual(decodeCallRow(asRow(encoded)));
    const anonymous = decodeCallRow(asRow(encodeCallPoint({ ...point, app: "", metadata: {} })));
    expect(anonymous.ok && anonymous.point.metadata).toEqual({});
  });

  it("writes nulls as empty blobs and −1 doubles, and reads them back as null", () => {
    const failed: CallPoint = {
      ...point,
      provider: null,
      model: null,
      errorCode: "all_steps_failed",
      cacheStatus: null,
      step: null,
      status: 503,
      ok: false,
      tokensIn: null,
      tokensOut: null,
      cost: null,
      metadata: {},
      attempt: 1,
    };
    const encoded = encodeCallPoint(failed);
    expect(encoded.blobs[2]).toBe("");
    expect(encoded.doubles[0]).toBe(-1);
    const decoded = decodeCallRow(asRow(encoded));
    expect(decoded.ok && decoded.point).toEqual({
      ...failed,
      latencyMs: 42,
      metadata: { app: "app_1" },
    });
  });

  it("names each column once, and writes the schema version", () => {
    const columns = Object.values(callPointColumns);
    expect(new Set(columns).size).toBe(columns.length);
    expect(callPointColumns.route).toBe("blob2");
    expect(encodeCallPoint(point).doubles[7]).toBe(callPointSchemaVersion);
    expect(callPointColumns.attempt).toBe("double9");
    expect(encodeCallPoint(point).doubles[8]).toBe(2);
    // A point without an attempt (a writer before version 3) reads as the call's first.
    const { attempt: _attempt, ...first } = point;
    expect(encodeCallPoint(first).doubles[8]).toBe(1);
  });

  it("keeps a point within Analytics Engine's limits whatever the names", () => {
    const huge = "x".repeat(100_000);
    const encoded = encodeCallPoint({
      ...point,
      gateway: `é${huge}`,
      route: huge,
      metadata: Object.fromEntries(Array.from({ length: 9 }, (_, i) => [`k${i}`, huge])),
    });
    expect(new TextEncoder().encode(encoded.indexes[0]).byteLength).toBeLessThanOrEqual(96);
    expect(encoded.blobs.length).toBeLessThanOrEqual(20);
    const blobBytes = encoded.blobs.reduce(
      (sum, blob) => sum + new TextEncoder().encode(blob).byteLength,
      0,
    );
    expect(blobBytes).toBeLessThanOrEqual(16 * 1024);
  });

  it("uses the sampling weight and refuses rows it cannot read, saying why", () => {
    const sampled = decodeCallRow(asRow(encodeCallPoint(point), { _sample_interval: 10 }));
    expect(sampled.ok && sampled.weight).toBe(10);
    expect(decodeCallRow({ blob1: "g", double2: 200 })).toEqual({
      ok: false,
      reason: "no readable timestamp",
    });
    expect(decodeCallRow({ timestamp: "2026-11-30T00:00:00Z", double2: 200 })).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/gateway/),
    });
  });
});
