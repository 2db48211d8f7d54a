import { z } from "zod";
import { errorCodeSchema } from "./errors.ts";

/** Where resumable (tus 1.0.0) uploads are created: POST here, then HEAD/PATCH/DELETE {path}/{id}. */
export const RESUMABLE_UPLOADS_PATH = "/api/uploads";

/** GET /api/uploads/{id}: how far a resumable upload is, and the job it became once the last byte is in. */
export const uploadStatusSchema = z.object({
  offset: z.number().int(),
  length: z.number().int(),
  /** Null until the upload is complete and accepted. */
  jobId: z.string().nullable(),
  /** Why the complete upload was refused (the same code as POST /api/upload would give); else null. */
  error: z.object({ code: errorCodeSchema, message: z.string() }).nullable(),
});
export type UploadStatus = z.infer<typeof uploadStatusSchema>;
