import { z } from "zod";

/** GET /api/config (no login): the public runtime settings of the web app; an empty URL means none. */
export const appConfigSchema = z.object({
  appName: z.string(),
  howToUseUrl: z.string(),
  contactUrl: z.string(),
  termsUrl: z.string(),
  privacyUrl: z.string(),
});
export type AppConfig = z.infer<typeof appConfigSchema>;
