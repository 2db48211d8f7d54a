import type { Redis } from "ioredis";
import { PROGRESS_CHANNEL } from "../jobs.ts";
import { type ProgressEnvelope, progressEnvelopeSchema } from "../progress.ts";

export function progressChannel(prefix: string): string {
  return `${prefix}:${PROGRESS_CHANNEL}`;
}

/** Worker side: validate and publish one update. Returns how many subscribers received it. */
export async function publishProgress(redis: Redis, prefix: string, envelope: ProgressEnvelope): Promise<number> {
  const checked = progressEnvelopeSchema.parse(envelope);
  return redis.publish(progressChannel(prefix), JSON.stringify(checked));
}

/**
 * Gateway side: subscribe on a dedicated connection; each valid envelope is handed to `onEnvelope`,
 * invalid ones to `onInvalid` (logged, never forwarded). The envelope's correlation id is copied into
 * the event, so the socket message to the browser can be traced to the upload and the job logs.
 */
export async function subscribeProgress(
  subscriber: Redis,
  prefix: string,
  onEnvelope: (e: ProgressEnvelope) => void,
  onInvalid: (raw: string, err: unknown) => void = () => {},
): Promise<() => Promise<void>> {
  const channel = progressChannel(prefix);
  const listener = (ch: string, raw: string) => {
    if (ch !== channel) return;
    try {
      const envelope = progressEnvelopeSchema.parse(JSON.parse(raw));
      if (envelope.correlationId && !envelope.event.correlationId) {
        envelope.event = { ...envelope.event, correlationId: envelope.correlationId };
      }
      onEnvelope(envelope);
    } catch (err) {
      onInvalid(raw, err);
    }
  };
  subscriber.on("message", listener);
  await subscriber.subscribe(channel);
  return async () => {
    subscriber.off("message", listener);
    await subscriber.unsubscribe(channel);
  };
}
