// One raw HTTP/1.1 request over a plain socket, for what fetch will not send (oversized headers, odd
// request lines): the status line's code and the body.
import net from "node:net";

export function rawHttp(base: string, request: string): Promise<{ status: number; body: string }> {
  const u = new URL(base);
  return new Promise((resolve, reject) => {
    const sock = net.connect(Number(u.port), u.hostname, () => sock.write(request));
    let text = "";
    sock.on("data", (d) => {
      text += d.toString();
    });
    sock.on("close", () => {
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
      resolve({ status, body: text.slice(text.indexOf("\r\n\r\n") + 4) });
    });
    sock.on("error", reject);
  });
}
