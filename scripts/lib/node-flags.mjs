// The V8 flags each service's Node process starts with, in one place: `npm start` (scripts/start.mjs),
// the tests' and benches' service processes (tests/infra/service-process.ts) and the images' CMD
// (infra/Dockerfile; tests/infra/dockerfile.unit.test.ts holds it to this list). These flags are not
// allowed in NODE_OPTIONS, so they go on the command line. docs/decisions/0036-gateway-heap.md.
const NODE_FLAGS = {
  // The gateway's old generation starts at 128 MB (as a JVM's -Xms). Left to itself, V8 sized it to
  // its ~60 MB of live objects plus ~24 MB, and under uploads ran a full incremental marking every
  // 50–150 ms (113 in 15 rounds of the upload bench), 15–35 ms of the event loop each, inside whoever's
  // upload or request was running; with 128 MB, 18.
  gateway: ["--initial-old-space-size=128"],
};

/** The flags of `service` (none for a service not listed). */
export function nodeFlagsOf(service) {
  return NODE_FLAGS[service] ?? [];
}
