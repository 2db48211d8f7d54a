// JSON calls to a test gateway as a signed-in user.
import type { TestGateway } from "./gateway.ts";

/** A JSON request with the user's bearer token: the status, the parsed body (null when empty), the headers. */
export async function apiCall(
  t: Pick<TestGateway, "url">,
  token: string,
  url: string,
  init: { method?: string; body?: unknown } = {},
) {
  const r = await fetch(`${t.url}${url}`, {
    method: init.method ?? "GET",
    headers: {
      authorization: `Bearer ${token}`,
      ...(init.body !== undefined ? { "content-type": "application/json" } : {}),
    },
    body: init.body !== undefined ? JSON.stringify(init.body) : undefined,
  });
  const text = await r.text();
  return { status: r.status, body: text ? JSON.parse(text) : null, headers: r.headers };
}
