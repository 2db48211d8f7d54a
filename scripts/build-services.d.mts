// Types of scripts/build-services.mjs for the tests that read its service table.
export interface ServiceBuild {
  /** Output name (dist/<name>.js) -> source file, relative to the repository root. */
  entries: Record<string, string>;
  /** Packages left out of the bundles and copied into the image's node_modules. */
  external: string[];
  /** Files copied as they are: source -> path under the image's /app. */
  copy?: Record<string, string>;
  /** Directories copied as they are: source -> path under the image's /app. */
  assets?: Record<string, string>;
}
export const SERVICES: Record<"gateway" | "transcription-worker" | "text-worker" | "billing", ServiceBuild>;
