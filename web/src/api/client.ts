/**
 * `apiFetch`: the one way the web app talks to the API. Same origin (`/api/...`), JSON in and out,
 * bearer token from the session when there is one, a 30 s (60 s on mobile) time-out, and errors
 * parsed into ApiError.
 */
import { networkTimeoutMs } from "../auth/timing.ts";
import { ApiError, toApiError } from "./errors.ts";

/** Supplies bearer tokens; registered by the session module so this file does not import it. */
export interface TokenProvider {
  getValidIdToken(): Promise<string | null>;
  /** Resolves the refreshed session's token holder, or null when logged out. */
  refreshNow(): Promise<{ idToken: string } | null>;
}

let tokens: TokenProvider | null = null;

export function configureAuth(provider: TokenProvider): void {
  tokens = provider;
}

export interface ApiFetchOptions {
  method?: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  /** A plain value is sent as JSON; FormData is sent as multipart. */
  body?: unknown;
  /** Send the bearer token (default true). Without a session the call is made without it. */
  auth?: boolean;
  signal?: AbortSignal;
  timeoutMs?: number;
  headers?: Record<string, string>;
  /** Told how many bytes of the body are sent, as they go (an upload's real progress). */
  onUploadProgress?: (loaded: number, total: number) => void;
}

/**
 * `fetch` for a body whose sending is followed: XMLHttpRequest (fetch reports no upload progress),
 * answered as a Response so the rest of apiFetch reads it the same way.
 */
function sendWithProgress(
  path: string,
  init: { method: string; headers: Record<string, string>; body: FormData; signal: AbortSignal },
  onProgress: (loaded: number, total: number) => void,
): Promise<Response> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open(init.method, path);
    for (const [k, v] of Object.entries(init.headers)) xhr.setRequestHeader(k, v);
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable) onProgress(e.loaded, e.total);
    };
    xhr.onload = () => {
      const headers = new Headers();
      for (const line of xhr.getAllResponseHeaders().trim().split(/\r?\n/)) {
        const i = line.indexOf(":");
        if (i > 0) headers.append(line.slice(0, i).trim(), line.slice(i + 1).trim());
      }
      const empty = xhr.status === 204 || xhr.status === 205;
      resolve(new Response(empty ? null : xhr.responseText, { status: xhr.status, headers }));
    };
    xhr.onerror = () => reject(new TypeError("Network error"));
    xhr.onabort = () => reject(new DOMException("The request was aborted.", "AbortError"));
    if (init.signal.aborted) return xhr.abort();
    init.signal.addEventListener("abort", () => xhr.abort(), { once: true });
    xhr.send(init.body);
  });
}

function userAgent(): string {
  return typeof navigator === "undefined" ? "" : navigator.userAgent;
}

async function readBody(res: Response): Promise<unknown> {
  if (res.status === 204 || res.status === 205) return undefined;
  const text = await res.text();
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

async function send(path: string, opts: ApiFetchOptions, token: string | null): Promise<Response> {
  const headers: Record<string, string> = { Accept: "application/json", ...opts.headers };
  let body: BodyInit | undefined;
  if (opts.body instanceof FormData) {
    body = opts.body;
  } else if (opts.body !== undefined) {
    headers["Content-Type"] = "application/json";
    body = JSON.stringify(opts.body);
  }
  if (token) headers.Authorization = `Bearer ${token}`;

  const timeout = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    timeout.abort();
  }, opts.timeoutMs ?? networkTimeoutMs(userAgent()));
  const onAbort = () => timeout.abort();
  if (opts.signal?.aborted) timeout.abort();
  opts.signal?.addEventListener("abort", onAbort, { once: true });
  try {
    const init = { method: opts.method ?? (body ? "POST" : "GET"), headers, body, signal: timeout.signal };
    if (opts.onUploadProgress && body instanceof FormData) {
      return await sendWithProgress(path, { ...init, body }, opts.onUploadProgress);
    }
    return await fetch(path, init);
  } catch (e) {
    if (timedOut) throw new ApiError("TIMEOUT", 0, "The request timed out.");
    if (opts.signal?.aborted) throw e;
    throw new ApiError("NETWORK_ERROR", 0, e instanceof Error ? e.message : "Network error");
  } finally {
    clearTimeout(timer);
    opts.signal?.removeEventListener("abort", onAbort);
  }
}

export async function apiFetch<T = unknown>(path: string, opts: ApiFetchOptions = {}): Promise<T> {
  const useAuth = opts.auth ?? true;
  const token = useAuth && tokens ? await tokens.getValidIdToken() : null;
  let res = await send(path, opts, token);
  let body = await readBody(res);
  if (!res.ok) {
    let err = toApiError(res.status, body);
    // The clock may disagree with the server's: refresh once and retry when the token is reported expired.
    if (token && tokens && err.code === "TOKEN_EXPIRED") {
      const fresh = await tokens.refreshNow().catch(() => null);
      if (fresh) {
        res = await send(path, opts, fresh.idToken);
        body = await readBody(res);
        if (res.ok) return body as T;
        err = toApiError(res.status, body);
      }
    }
    throw err;
  }
  return body as T;
}

/** A reader of one answer: the typed value, or null when the answer does not have the expected shape. */
export type AnswerParser<T> = (raw: unknown) => T | null;

/** A zod schema as an AnswerParser. */
export function bySchema<T>(schema: {
  safeParse: (raw: unknown) => { success: true; data: T } | { success: false; error: unknown };
}): AnswerParser<T> {
  return (raw) => {
    const r = schema.safeParse(raw);
    return r.success ? r.data : null;
  };
}

/**
 * apiFetch, then `parse`: an answer without the expected shape is a BAD_RESPONSE error whose message is
 * `unexpected` (its status is the success status of the call, `okStatus`).
 */
export async function apiFetchParsed<T>(
  path: string,
  parse: AnswerParser<T>,
  unexpected: string,
  opts: ApiFetchOptions & { okStatus?: number } = {},
): Promise<T> {
  const parsed = parse(await apiFetch<unknown>(path, opts));
  if (parsed === null) throw new ApiError("BAD_RESPONSE", opts.okStatus ?? 200, unexpected);
  return parsed;
}
