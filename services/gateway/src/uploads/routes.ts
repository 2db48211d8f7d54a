// Resumable uploads: the tus 1.0.0 protocol at /api/uploads (creation, creation-with-upload,
// termination, expiration) served by @tus/server over our own data store (parts in the object store,
// state in Postgres), behind the same bearer auth as every other call, plus GET /api/uploads/{id} in
// JSON. Every error answer is in the API's error shape (docs/decisions/0030-resumable-uploads.md).
import { randomUUID } from "node:crypto";
import { Readable } from "node:stream";
import { AppError, PLAN_CATALOGUE, RESUMABLE_UPLOADS_PATH, uploadStatusSchema } from "@kikitori/shared";
import { Server, TUS_RESUMABLE } from "@tus/server";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { assertUid, bearerToken, requireAuth } from "../auth/guard.ts";
import type { TokenSigner } from "../auth/tokens.ts";
import { errorResponses } from "../errors.ts";
import { type PartsDataStore, setOwner } from "./data-store.ts";
import type { Caller, ResumableUploads } from "./usecases.ts";

export interface ResumableUploadRoutesOptions {
  signer: TokenSigner;
  resumable: ResumableUploads;
  dataStore: PartsDataStore;
  /** The app's origin: the only one CORS answers for. */
  publicUrl: string;
  /** Longest a PATCH body may stall before the connection is closed (what arrived is kept). */
  idleMs: number;
}

/** What tus's own plain-text refusals become in the API's error shape, by status. */
function tusRefusal(status: number, text: string): AppError {
  const message = text.trim() || `Upload request refused (${status})`;
  switch (status) {
    case 404:
      return new AppError("NOT_FOUND", "No such upload");
    case 409:
      return new AppError("VERSION_CONFLICT", `${message}: ask for the offset (HEAD) and resume from it`);
    case 410:
      return new AppError("AUDIO_EXPIRED", "The upload expired a day after its last part; start it again");
    case 413:
      return new AppError("FILE_TOO_LARGE", message);
    default:
      return status < 500
        ? new AppError("VALIDATION_FAILED", message, { status: status === 412 ? 412 : 400 })
        : new AppError("INTERNAL", "The upload could not be stored; please try again");
  }
}

type TusCaller = Caller & { maxBytes: number };

/**
 * The tus server over our data store. `callers` holds each request's caller and plan limit, keyed by
 * the web Request handed to it; its hooks check ownership, the form's fields and turn the complete
 * upload into a job.
 */
function tusServer(opts: ResumableUploadRoutesOptions, callers: WeakMap<Request, TusCaller>): Server {
  const { resumable } = opts;
  const callerOf = (req: Request) => {
    const c = callers.get(req);
    if (!c) throw new AppError("UNAUTHENTICATED", "An ID token is required (Authorization: Bearer …)");
    return c;
  };
  return new Server({
    path: RESUMABLE_UPLOADS_PATH,
    datastore: opts.dataStore,
    relativeLocation: true,
    allowedOrigins: [new URL(opts.publicUrl).origin],
    namingFunction: () => randomUUID(),
    maxSize: (req) => callers.get(req)?.maxBytes ?? PLAN_CATALOGUE.largestUploadBytes,
    exposedHeaders: ["Upload-Job-Id"],
    onIncomingRequest: async (req, id) => {
      if (req.method !== "POST") await resumable.assertOwner(callerOf(req), id);
    },
    onUploadCreate: async (req, upload) => {
      const caller = callerOf(req);
      await resumable.checkCreation(caller, upload.size, upload.metadata);
      setOwner(upload, caller.uid);
      return {};
    },
    onUploadFinish: async (req, upload) => {
      const jobId = await resumable.finish(callerOf(req), upload.id);
      return jobId ? { headers: { "Upload-Job-Id": jobId } } : {};
    },
    onResponseError: (req, err) => {
      if (err instanceof AppError) return { status_code: err.status, body: JSON.stringify(err.toBody()) };
      if (err instanceof Error) {
        callers.get(req)?.log.warn({ err }, "resumable upload failed");
        return { status_code: 500, body: JSON.stringify(tusRefusal(500, "").toBody()) };
      }
      return undefined;
    },
  });
}

/** Hands a request to the tus server and its answer back to Fastify (so every hook still runs). */
async function viaTus(
  tus: Server,
  callers: WeakMap<Request, TusCaller>,
  idleMs: number,
  req: FastifyRequest,
  reply: FastifyReply,
  caller: TusCaller | null,
) {
  const url = new URL(req.url, `http://${req.headers.host ?? "localhost"}`);
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) {
    if (v !== undefined) headers.set(k, Array.isArray(v) ? v.join(", ") : v);
  }
  const withBody = req.method === "POST" || req.method === "PATCH";
  if (withBody) watchIdle(req, idleMs);
  const request = new Request(url, {
    method: req.method,
    headers,
    body: withBody ? (Readable.toWeb(req.raw) as ReadableStream<Uint8Array>) : undefined,
    duplex: "half",
  } as RequestInit);
  if (caller) callers.set(request, caller);
  const res = await tus.handleWeb(request);
  res.headers.forEach((value, name) => {
    if (name !== "content-length") reply.header(name, value);
  });
  const text = res.body ? await res.text() : "";
  if (res.status >= 400) {
    const body = text.startsWith("{") ? text : JSON.stringify(tusRefusal(res.status, text).toBody());
    return reply.code(res.status).type("application/json; charset=utf-8").send(body);
  }
  return reply.code(res.status).send(text || undefined);
}

export const resumableUploadRoutes: FastifyPluginAsyncZod<ResumableUploadRoutesOptions> = async (app, opts) => {
  const { resumable } = opts;
  const guard = requireAuth(opts.signer);
  const callers = new WeakMap<Request, TusCaller>();
  const tus = tusServer(opts, callers);
  const toTus = (req: FastifyRequest, reply: FastifyReply, caller: TusCaller | null) =>
    viaTus(tus, callers, opts.idleMs, req, reply, caller);
  const callerOfRequest = (req: FastifyRequest): Caller => ({
    uid: assertUid(req, undefined),
    correlationId: String(req.id),
    log: req.log,
  });
  const callerFor = async (req: FastifyRequest): Promise<TusCaller> => {
    const caller = callerOfRequest(req);
    return { ...caller, maxBytes: await resumable.maxUploadBytes(caller.uid) };
  };

  app.addHook("onRequest", async (_req, reply) => {
    reply.header("tus-resumable", TUS_RESUMABLE);
  });
  // PATCH bodies (and creation-with-upload) stay unread streams: the data store reads them.
  app.addContentTypeParser("application/offset+octet-stream", (_req, _payload, done) => done(null));
  const tags = ["uploads"];
  const security = [{ bearer: [] }];
  const params = z.object({ id: z.string().max(64) });

  app.post(
    "/uploads",
    {
      onRequest: guard,
      schema: {
        tags,
        security,
        summary:
          "Create a resumable upload (tus 1.0.0 creation): Upload-Length within the plan's maxUploadBytes (413 FILE_TOO_LARGE with the limit), Upload-Metadata with filename, filetype and the upload form's fields (base64); answers 201 with Location. Upload-Defer-Length is refused (400)",
        response: errorResponses(400, 401, 403, 413),
      },
    },
    async (req, reply) => {
      if (req.headers["upload-defer-length"] !== undefined) {
        throw new AppError("VALIDATION_FAILED", "Upload-Defer-Length is not supported: send Upload-Length");
      }
      const caller = await callerFor(req);
      const length = Number(req.headers["upload-length"]);
      if (Number.isSafeInteger(length) && length > caller.maxBytes) {
        throw new AppError("FILE_TOO_LARGE", `The file is larger than your plan's limit of ${caller.maxBytes} bytes`, {
          details: { maxUploadBytes: caller.maxBytes, uploadLength: length },
        });
      }
      return toTus(req, reply, caller);
    },
  );

  app.route({
    method: ["HEAD", "PATCH", "DELETE"],
    url: "/uploads/:id",
    onRequest: guard,
    schema: {
      tags,
      security,
      params,
      summary:
        "tus 1.0.0 on one upload: HEAD gives Upload-Offset and Upload-Length; PATCH (application/offset+octet-stream, Upload-Offset = the current offset, else 409) appends bytes, and the last one turns the upload into a job (Upload-Job-Id header; or the same 402/415/422 as POST /api/upload); DELETE ends it. Another user's upload is 404",
    },
    handler: async (req, reply) => toTus(req, reply, await callerFor(req)),
  });

  for (const url of ["/uploads", "/uploads/:id"]) {
    app.options(
      url,
      {
        schema: {
          tags,
          summary: "tus discovery: Tus-Version, Tus-Extension, Tus-Max-Size (the plan's when signed in)",
        },
      },
      async (req, reply) => {
        // No token needed (a browser's preflight has none); with one, the limit is the user's plan's.
        const signedIn = bearerToken(req)
          ? await guard(req, reply)
              .then(() => true)
              .catch(() => false)
          : false;
        return toTus(req, reply, signedIn ? await callerFor(req) : null);
      },
    );
  }

  app.get(
    "/uploads/:id",
    {
      onRequest: guard,
      exposeHeadRoute: false,
      schema: {
        tags,
        security,
        params,
        summary:
          "A resumable upload's progress: { offset, length, jobId (null until the last byte is in and the recording was accepted), error (why it was refused, else null) }",
        response: { 200: uploadStatusSchema, ...errorResponses(401, 404) },
      },
    },
    async (req) => resumable.status(callerOfRequest(req), req.params.id),
  );
};

/** Closes a PATCH whose body stalls for `idleMs` (tus keeps what arrived; the client resumes). */
function watchIdle(req: FastifyRequest, idleMs: number): void {
  const socket = req.raw.socket;
  socket.setTimeout(idleMs, () => socket.destroy());
  const clear = () => socket.setTimeout(0);
  req.raw.once("end", clear);
  req.raw.once("close", clear);
}
