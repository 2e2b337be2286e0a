/**
 * @module
 * The floor of any gateway in a process of its own, for the first-token benchmark: a bare
 * `node:http` pass-through that reads each request, sends it on to one upstream over a keep-alive
 * agent, and writes the answer's chunks back as they come. No routing, logging or keys: what is
 * left is the extra process and its two loopback hops. Plain `node` (no TypeScript loader), so it
 * runs as lean as it can; it reports its port over IPC like every child server.
 *
 * Usage (forked by `child-server.ts`): node tools/bench/servers/pass-through.mjs <upstream-url>
 */
import { Agent, createServer, request } from "node:http";

const upstream = new URL(process.argv[2] ?? "");
const agent = new Agent({ keepAlive: true });

const server = createServer((incoming, answer) => {
  const chunks = [];
  incoming.on("data", (chunk) => chunks.push(chunk));
  incoming.on("end", () => {
    const body = Buffer.concat(chunks);
    const outgoing = request(
      {
        agent,
        hostname: upstream.hostname,
        port: upstream.port,
        method: incoming.method,
        path: incoming.url,
        headers: { ...incoming.headers, host: upstream.host, "content-length": body.length },
      },
      (response) => {
        answer.writeHead(response.statusCode ?? 502, response.headers);
        response.on("data", (chunk) => answer.write(chunk));
        response.on("end", () => answer.end());
      },
    );
    outgoing.on("error", () => answer.destroy());
    outgoing.end(body);
  });
});

server.listen(0, "127.0.0.1", () => {
  const { address, port } = server.address();
  process.send?.({ type: "listening", address, port });
});
