import http from "node:http";
import type { AddressInfo } from "node:net";

export interface StandinRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/**
 * A local HTTP stand-in of the OpenAI API: every request is recorded and answered by `respond`
 * (status + JSON). Point the SDK's baseURL at `url` (it ends in /v1).
 */
export async function startOpenAiStandin(
  respond: (
    req: StandinRequest,
    n: number,
  ) => { status?: number; json: unknown } | Promise<{ status?: number; json: unknown }>,
): Promise<{ url: string; requests: StandinRequest[]; close: () => Promise<void> }> {
  const requests: StandinRequest[] = [];
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const r: StandinRequest = {
      method: req.method ?? "",
      path: req.url ?? "",
      headers: req.headers,
      body: Buffer.concat(chunks),
    };
    requests.push(r);
    const answer = await respond(r, requests.length);
    res.writeHead(answer.status ?? 200, { "content-type": "application/json" });
    res.end(JSON.stringify(answer.json));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The value of one field of a multipart body (enough for the SDK's form uploads). */
export function multipartField(body: Buffer, name: string): string | null {
  const text = body.toString("latin1");
  const m = new RegExp(
    `name="${name}"(?:; filename="[^"]*")?\\r\\n(?:[^\\r\\n]+\\r\\n)*\\r\\n([\\s\\S]*?)\\r\\n--`,
  ).exec(text);
  return m ? m[1] : null;
}
