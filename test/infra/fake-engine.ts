/**
 * @module
 * A stand-in for the Pulumi engine and resource monitor, served over real gRPC on 127.0.0.1, so a
 * test can run the program the way `pulumi up` does: `node <nodeargs> …/cmd/run <main>` in a
 * child process. Resources are answered by Pulumi's own `MockMonitor` (inputs echoed as state);
 * log messages the program sends to the engine are recorded.
 */
import { createRequire } from "node:module";
import type * as pulumi from "@pulumi/pulumi";

const require = createRequire(import.meta.resolve("@pulumi/pulumi"));
const grpc = require("@grpc/grpc-js") as typeof import("@grpc/grpc-js");
const engineGrpc = require("./proto/engine_grpc_pb.js");
const engineProto = require("./proto/engine_pb.js");
const resourceGrpc = require("./proto/resource_grpc_pb.js");
const resourceProto = require("./proto/resource_pb.js");
const emptyProto = require("google-protobuf/google/protobuf/empty_pb.js");
const { MockMonitor } = require("./runtime/mocks.js") as {
  MockMonitor: new (mocks: pulumi.runtime.Mocks) => Record<string, (...args: unknown[]) => unknown>;
};

export interface EngineLog {
  /** 0 debug, 1 info, 2 warning, 3 error. */
  readonly severity: number;
  readonly message: string;
}

export interface FakeEngine {
  /** `127.0.0.1:<port>`, for `--monitor` and `--engine`. */
  readonly address: string;
  readonly resources: { type: string; name: string; inputs: Record<string, unknown> }[];
  readonly logs: EngineLog[];
  stop(): Promise<void>;
}

type Handler = import("@grpc/grpc-js").handleUnaryCall<unknown, unknown>;
type Callback = import("@grpc/grpc-js").sendUnaryData<unknown>;

/** Starts the fake engine on a port chosen at run time. */
export async function startFakeEngine(): Promise<FakeEngine> {
  const resources: FakeEngine["resources"] = [];
  const logs: EngineLog[] = [];
  const monitor = new MockMonitor({
    newResource: (args) => {
      resources.push({ type: args.type, name: args.name, inputs: args.inputs });
      return { id: `${args.name}-id`, state: { ...args.inputs } };
    },
    call: (args) => {
      throw new Error(`unexpected call ${args.token}`);
    },
  });
  let rootUrn = "";
  const empty = () => new emptyProto.Empty();
  const forward =
    (method: string): Handler =>
    (call, callback) =>
      (monitor[method] as (request: unknown, done: typeof callback) => void).call(
        monitor,
        call.request,
        callback,
      );

  const server = new grpc.Server();
  server.addService(resourceGrpc.ResourceMonitorService, {
    supportsFeature: ((call, callback) => {
      const id = (call.request as { getId(): string }).getId();
      // Like Pulumi's own mocks: every feature but output values, so inputs arrive as plain
      // values (secrets keep their markers).
      callback(
        null,
        new resourceProto.SupportsFeatureResponse().setHassupport(id !== "outputValues"),
      );
    }) satisfies Handler,
    registerResource: forward("registerResource"),
    readResource: forward("readResource"),
    invoke: forward("invoke"),
    registerPackage: forward("registerPackage"),
    registerResourceOutputs: ((call, callback) =>
      (monitor.registerResourceOutputs as (request: unknown, done: typeof callback) => void).call(
        monitor,
        call.request,
        (error: Parameters<Callback>[0]) => callback(error, empty()),
      )) satisfies Handler,
    signalAndWaitForShutdown: ((_call, callback) => callback(null, empty())) satisfies Handler,
  });
  server.addService(engineGrpc.EngineService, {
    log: ((call, callback) => {
      const request = call.request as { getSeverity(): number; getMessage(): string };
      logs.push({ severity: request.getSeverity(), message: request.getMessage() });
      callback(null, empty());
    }) satisfies Handler,
    getRootResource: ((_call, callback) =>
      callback(null, new engineProto.GetRootResourceResponse().setUrn(rootUrn))) satisfies Handler,
    setRootResource: ((call, callback) => {
      rootUrn = (call.request as { getUrn(): string }).getUrn();
      callback(null, new engineProto.SetRootResourceResponse());
    }) satisfies Handler,
    requirePulumiVersion: ((_call, callback) =>
      callback(null, new engineProto.RequirePulumiVersionResponse())) satisfies Handler,
  });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (error, bound) =>
      error ? reject(error) : resolve(bound),
    ),
  );
  return {
    address: `127.0.0.1:${port}`,
    resources,
    logs,
    stop: () =>
      new Promise<void>((resolve) => {
        server.tryShutdown(() => resolve());
      }),
  };
}
