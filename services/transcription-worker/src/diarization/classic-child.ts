// The classic diarization engine's work, in its own process (forked by ClassicDiarizationEngine
// through runChild): reads the WAV span by span (an hours-long recording is never in memory whole),
// clusters the pieces, answers once and exits.
import { openWavMono16k } from "../wav.ts";
import { serveOnce } from "./child.ts";
import { diarizePieces } from "./classic.ts";
import { RATE, speechPiecesFrom } from "./features.ts";

serveOnce(async (input: { wavPath: string; speech: Array<{ start: number; end: number }>; speakers?: number }) => {
  const wav = await openWavMono16k(input.wavPath);
  try {
    const pieces = await speechPiecesFrom(wav, input.speech);
    return diarizePieces(pieces, input.speech, wav.samples / RATE, input.speakers);
  } finally {
    await wav.close();
  }
});
