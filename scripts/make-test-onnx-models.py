#!/usr/bin/env python3
"""Writes small ONNX models in the exact format sherpa-onnx reads, with random weights, for tests.

Real weights cannot be downloaded on the test machines, so these files stand in for them: the same
input and output names, ranks, dynamic axes and metadata as sherpa-onnx's own exports
(scripts/pyannote/segmentation/export-onnx.py, scripts/nemo/speaker-verification/export-onnx.py),
small graphs inside. Their answers are meaningless but shaped and ranged like the real ones, so every
step that loads, runs and parses them is exercised.

Usage: make-test-onnx-models.py OUT_DIR   (needs the onnx and numpy modules, e.g. Debian's
python3-onnx and python3-numpy). Writes:
  pyannote-segmentation.onnx            pyannote segmentation-3.0 format
  nemo-speaker-embedding.onnx           NeMo TitaNet speaker embedding format
and broken variants for the failure tests:
  pyannote-segmentation-no-window-size.onnx   metadata key window_size missing
  pyannote-segmentation-rank2-input.onnx      input x of shape (N, T) instead of (N, 1, T)
  nemo-speaker-embedding-no-output-dim.onnx   metadata key output_dim missing
  nemo-speaker-embedding-not-nemo.onnx        framework says wespeaker-like "other"
and a NeMo transducer (the format of Parakeet-TDT/RNNT exports, as sherpa-onnx's OfflineRecognizer
reads it with modelType "nemo_transducer"):
  nemo-transducer/encoder.onnx, decoder.onnx, joiner.onnx, tokens.txt
and a SenseVoice CTC model (the format of sherpa-onnx's SenseVoice-small export,
scripts/sense-voice/export-onnx.py, as its OfflineSenseVoiceModel reads it):
  sense-voice/model.onnx, tokens.txt
  sense-voice-no-lang-ja/model.onnx, tokens.txt   metadata key lang_ja missing
"""

import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 13
SAMPLE_RATE = 16000
# pyannote segmentation-3.0: 10 s windows, a frame every 270 samples over 991 samples.
WINDOW_SIZE = 10 * SAMPLE_RATE
RECEPTIVE_FIELD_SIZE = 991
RECEPTIVE_FIELD_SHIFT = 270
NUM_SPEAKERS = 3
POWERSET_MAX_CLASSES = 2
NUM_CLASSES = 7  # 1 (silence) + 3 (one speaker) + 3 (two speakers)
# NeMo TitaNet-small.
FEAT_DIM = 80
OUTPUT_DIM = 192


def tensor(name, array):
    return numpy_helper.from_array(np.asarray(array, dtype=np.float32), name)


def save(graph, meta, path):
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="kikitori-tests")
    model.ir_version = 7
    for key, value in meta.items():
        prop = model.metadata_props.add()
        prop.key = key
        prop.value = str(value)
    onnx.checker.check_model(model)
    onnx.save(model, path)


def segmentation_graph(rng, rank2_input=False):
    """x (N, 1, T) float -> y (N, frames, 7): log-softmax over the powerset classes per frame."""
    channels = 8
    conv = rng.normal(0, 1 / np.sqrt(RECEPTIVE_FIELD_SIZE), (channels, 1, RECEPTIVE_FIELD_SIZE))
    # The features are log magnitudes (about -7 in silence, -2.5 in speech): silence (class 0) wins
    # below about -4.5 on average, the speaker classes above it, told apart by the random mix.
    mix = rng.normal(0, 0.3, (NUM_CLASSES, channels, 1))
    mix[0] -= 1.0
    mix[1:] += 0.25
    bias = np.zeros(NUM_CLASSES)
    bias[0] = -1.25 * channels * 4.5
    nodes = []
    x_shape = ["N", "T"] if rank2_input else ["N", 1, "T"]
    src = "x"
    if rank2_input:
        nodes.append(helper.make_node("Unsqueeze", ["x", "axes1"], ["x3"]))
        src = "x3"
    nodes += [
        helper.make_node("Conv", [src, "w1"], ["c1"], strides=[RECEPTIVE_FIELD_SHIFT]),
        helper.make_node("Abs", ["c1"], ["a1"]),
        helper.make_node("Add", ["a1", "eps"], ["a2"]),
        helper.make_node("Log", ["a2"], ["l1"]),
        helper.make_node("Conv", ["l1", "w2", "b2"], ["c2"]),
        helper.make_node("Transpose", ["c2"], ["t"], perm=[0, 2, 1]),
        helper.make_node("LogSoftmax", ["t"], ["y"], axis=-1),
    ]
    inits = [tensor("w1", conv), tensor("eps", [1e-4]), tensor("w2", mix), tensor("b2", bias)]
    if rank2_input:
        inits.append(numpy_helper.from_array(np.array([1], dtype=np.int64), "axes1"))
    return helper.make_graph(
        nodes,
        "pyannote-segmentation-test",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, x_shape)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", "T", NUM_CLASSES])],
        inits,
    )


def segmentation_meta():
    return {
        "num_speakers": NUM_SPEAKERS,
        "powerset_max_classes": POWERSET_MAX_CLASSES,
        "num_classes": NUM_CLASSES,
        "sample_rate": SAMPLE_RATE,
        "window_size": WINDOW_SIZE,
        "receptive_field_size": RECEPTIVE_FIELD_SIZE,
        "receptive_field_shift": RECEPTIVE_FIELD_SHIFT,
        "model_type": "pyannote-segmentation-3.0",
        "version": "1",
        "model_author": "kikitori-tests",
        "maintainer": "kikitori-tests",
    }


def embedding_graph(rng):
    """audio_signal (N, 80, T) float, length (N,) int64 -> logits (N, 16), embs (N, 192)."""
    hidden = 64
    nodes = [
        helper.make_node("Conv", ["audio_signal", "w1", "b1"], ["c1"], pads=[1, 1]),
        helper.make_node("Relu", ["c1"], ["r1"]),
        helper.make_node("ReduceMean", ["r1"], ["pooled"], axes=[2], keepdims=0),
        # length takes part (times zero) so that the input is a real one of the graph.
        helper.make_node("Cast", ["length"], ["len_f"], to=TensorProto.FLOAT),
        helper.make_node("Unsqueeze", ["len_f", "axes1"], ["len_col"]),
        helper.make_node("Mul", ["len_col", "zero"], ["len_zero"]),
        helper.make_node("Add", ["pooled", "len_zero"], ["pooled2"]),
        helper.make_node("MatMul", ["pooled2", "w2"], ["e1"]),
        helper.make_node("Tanh", ["e1"], ["embs"]),
        helper.make_node("MatMul", ["embs", "w3"], ["logits"]),
    ]
    inits = [
        tensor("w1", rng.normal(0, 1 / np.sqrt(FEAT_DIM * 3), (hidden, FEAT_DIM, 3))),
        tensor("b1", rng.normal(0, 0.1, hidden)),
        tensor("zero", [0.0]),
        tensor("w2", rng.normal(0, 1 / np.sqrt(hidden), (hidden, OUTPUT_DIM))),
        tensor("w3", rng.normal(0, 1 / np.sqrt(OUTPUT_DIM), (OUTPUT_DIM, 16))),
        numpy_helper.from_array(np.array([1], dtype=np.int64), "axes1"),
    ]
    return helper.make_graph(
        nodes,
        "nemo-speaker-embedding-test",
        [
            helper.make_tensor_value_info("audio_signal", TensorProto.FLOAT, ["B", FEAT_DIM, "T"]),
            helper.make_tensor_value_info("length", TensorProto.INT64, ["B"]),
        ],
        [
            helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["B", 16]),
            helper.make_tensor_value_info("embs", TensorProto.FLOAT, ["B", OUTPUT_DIM]),
        ],
        inits,
    )


def embedding_meta():
    return {
        "framework": "nemo",
        "language": "English",
        "url": "test model with random weights",
        "comment": "Written by scripts/make-test-onnx-models.py.",
        "sample_rate": SAMPLE_RATE,
        "output_dim": OUTPUT_DIM,
        "feature_normalize_type": "per_feature",
        "window_size_ms": 25,
        "window_stride_ms": 10,
        "window_type": "hann",
        "feat_dim": FEAT_DIM,
    }


# NeMo transducer: vocab_size in the metadata excludes the blank, which is the last token.
TRANSDUCER_VOCAB = 15
ENCODER_DIM = 32
PRED_HIDDEN = 16
PRED_RNN_LAYERS = 1
JOINER_DIM = 24
SUBSAMPLING = 8


def transducer_encoder(rng):
    """audio_signal (N, 80, T) float, length (N,) int64 -> outputs (N, 32, T/8), encoded_lengths (N,)."""
    nodes = [
        helper.make_node("Conv", ["audio_signal", "w", "b"], ["c"], strides=[SUBSAMPLING]),
        helper.make_node("Tanh", ["c"], ["outputs"]),
        # ceil(length / 8), as the strided convolution gives.
        helper.make_node("Sub", ["length", "one"], ["l1"]),
        helper.make_node("Div", ["l1", "eight"], ["l2"]),
        helper.make_node("Add", ["l2", "one"], ["encoded_lengths"]),
    ]
    inits = [
        tensor("w", rng.normal(0, 1 / np.sqrt(FEAT_DIM), (ENCODER_DIM, FEAT_DIM, 1))),
        tensor("b", rng.normal(0, 0.1, ENCODER_DIM)),
        numpy_helper.from_array(np.array(1, dtype=np.int64), "one"),
        numpy_helper.from_array(np.array(SUBSAMPLING, dtype=np.int64), "eight"),
    ]
    return helper.make_graph(
        nodes,
        "nemo-transducer-encoder-test",
        [
            helper.make_tensor_value_info("audio_signal", TensorProto.FLOAT, ["N", FEAT_DIM, "T"]),
            helper.make_tensor_value_info("length", TensorProto.INT64, ["N"]),
        ],
        [
            helper.make_tensor_value_info("outputs", TensorProto.FLOAT, ["N", ENCODER_DIM, "T2"]),
            helper.make_tensor_value_info("encoded_lengths", TensorProto.INT64, ["N"]),
        ],
        inits,
    )


def transducer_decoder(rng):
    """targets (N, 1) int32, target_length (N,) int32, two states (layers, N, hidden) ->
    decoder_output (N, hidden, 1), target_length_out, and the next two states."""
    state = ["L", "N", PRED_HIDDEN]
    nodes = [
        helper.make_node("Gather", ["embedding", "targets"], ["e"]),
        helper.make_node("Tanh", ["e"], ["e2"]),
        helper.make_node("Transpose", ["e2"], ["outputs"], perm=[0, 2, 1]),
        helper.make_node("Identity", ["target_length"], ["prednet_lengths"]),
        helper.make_node("Mul", ["states.1", "half"], ["states"]),
        helper.make_node("Mul", ["onnx::Slice_3", "half"], ["162"]),
    ]
    inits = [tensor("embedding", rng.normal(0, 1, (TRANSDUCER_VOCAB + 1, PRED_HIDDEN))), tensor("half", [0.5])]
    return helper.make_graph(
        nodes,
        "nemo-transducer-decoder-test",
        [
            helper.make_tensor_value_info("targets", TensorProto.INT32, ["N", 1]),
            helper.make_tensor_value_info("target_length", TensorProto.INT32, ["N"]),
            helper.make_tensor_value_info("states.1", TensorProto.FLOAT, state),
            helper.make_tensor_value_info("onnx::Slice_3", TensorProto.FLOAT, state),
        ],
        [
            helper.make_tensor_value_info("outputs", TensorProto.FLOAT, ["N", PRED_HIDDEN, 1]),
            helper.make_tensor_value_info("prednet_lengths", TensorProto.INT32, ["N"]),
            helper.make_tensor_value_info("states", TensorProto.FLOAT, state),
            helper.make_tensor_value_info("162", TensorProto.FLOAT, state),
        ],
        inits,
    )


def transducer_joiner(rng):
    """encoder_outputs (N, 32, 1), decoder_outputs (N, 16, 1) -> outputs (N, 1, 1, vocab + 1)."""
    bias = np.zeros(TRANSDUCER_VOCAB + 1)
    bias[-1] = 1.5  # the blank wins most frames, as in a real model
    nodes = [
        helper.make_node("Transpose", ["encoder_outputs"], ["et"], perm=[0, 2, 1]),
        helper.make_node("Transpose", ["decoder_outputs"], ["dt"], perm=[0, 2, 1]),
        helper.make_node("MatMul", ["et", "we"], ["ep"]),
        helper.make_node("MatMul", ["dt", "wd"], ["dp"]),
        helper.make_node("Add", ["ep", "dp"], ["s"]),
        helper.make_node("Relu", ["s"], ["r"]),
        helper.make_node("MatMul", ["r", "wo"], ["o"]),
        helper.make_node("Add", ["o", "bo"], ["o2"]),
        helper.make_node("Unsqueeze", ["o2", "axes2"], ["outputs"]),
    ]
    inits = [
        tensor("we", rng.normal(0, 1 / np.sqrt(ENCODER_DIM), (ENCODER_DIM, JOINER_DIM))),
        tensor("wd", rng.normal(0, 1 / np.sqrt(PRED_HIDDEN), (PRED_HIDDEN, JOINER_DIM))),
        tensor("wo", rng.normal(0, 1, (JOINER_DIM, TRANSDUCER_VOCAB + 1))),
        tensor("bo", bias),
        numpy_helper.from_array(np.array([2], dtype=np.int64), "axes2"),
    ]
    return helper.make_graph(
        nodes,
        "nemo-transducer-joiner-test",
        [
            helper.make_tensor_value_info("encoder_outputs", TensorProto.FLOAT, ["N", ENCODER_DIM, 1]),
            helper.make_tensor_value_info("decoder_outputs", TensorProto.FLOAT, ["N", PRED_HIDDEN, 1]),
        ],
        [helper.make_tensor_value_info("outputs", TensorProto.FLOAT, ["N", 1, 1, TRANSDUCER_VOCAB + 1])],
        inits,
    )


def write_transducer(out):
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(3)
    encoder_meta = {
        "vocab_size": TRANSDUCER_VOCAB,
        "normalize_type": "per_feature",
        "subsampling_factor": SUBSAMPLING,
        "pred_rnn_layers": PRED_RNN_LAYERS,
        "pred_hidden": PRED_HIDDEN,
        "feat_dim": FEAT_DIM,
        "model_type": "EncDecRNNTBPEModel",
        "version": "2",
        "model_author": "kikitori-tests",
        "url": "test model with random weights",
        "comment": "Only the encoder has metadata.",
    }
    save(transducer_encoder(rng), encoder_meta, os.path.join(out, "encoder.onnx"))
    save(transducer_decoder(rng), {}, os.path.join(out, "decoder.onnx"))
    save(transducer_joiner(rng), {}, os.path.join(out, "joiner.onnx"))
    # SentencePiece pieces with "▁" word starts, then the blank, as NeMo exports list them.
    pieces = ["<unk>", "▁the", "▁a", "s", "▁and", "t", "▁to", "e", "▁of", "d", "▁in", "ing", "▁i", "o", "▁we"]
    assert len(pieces) == TRANSDUCER_VOCAB
    with open(os.path.join(out, "tokens.txt"), "w", encoding="utf-8") as f:
        for i, p in enumerate([*pieces, "<blk>"]):
            f.write(f"{p} {i}\n")


# SenseVoice-small: 80 fbank features stacked 7 frames at a time every 6 frames (LFR), normalised with
# neg_mean and inv_stddev from the metadata; the model answers 4 query frames (language, emotion,
# event, text normalisation) before the CTC frames. The ids are the real model's (lid_dict, textnorm_dict).
LFR_M = 7
LFR_N = 6
SV_LANG_IDS = {"auto": 0, "zh": 3, "en": 4, "yue": 7, "ja": 11, "ko": 12, "nospeech": 13}
SV_WITH_ITN = 14
SV_WITHOUT_ITN = 15
SV_PIECES = ["<unk>", "<s>", "</s>", "▁the", "▁a", "s", "▁and", "t", "▁to", "e", "▁of", "の", "は", "日", "本", "東",
             "京", "、", "。", "<|zh|>", "<|en|>", "<|yue|>", "<|ja|>", "<|ko|>", "<|nospeech|>", "<|NEUTRAL|>",
             "<|Speech|>", "<|withitn|>", "<|woitn|>"]


def sense_voice_graph(rng):
    """x (N, T, 560) float, x_length (N,) int32, language (N,) int32, text_norm (N,) int32 ->
    logits (N, T + 4, vocab): the language's, emotion's, event's and normalisation's tags, then frames."""
    vocab = len(SV_PIECES)
    tok = {p: i for i, p in enumerate(SV_PIECES)}
    lang = np.zeros((16, 3, vocab))
    for name, lid in SV_LANG_IDS.items():
        heard = "en" if name == "auto" else name
        lang[lid, 0, tok[f"<|{heard}|>"]] = 20.0
        lang[lid, 1, tok["<|NEUTRAL|>"]] = 20.0
        lang[lid, 2, tok["<|Speech|>"]] = 20.0
    itn = np.zeros((16, 1, vocab))
    itn[SV_WITH_ITN, 0, tok["<|withitn|>"]] = 20.0
    itn[SV_WITHOUT_ITN, 0, tok["<|woitn|>"]] = 20.0
    weights = rng.normal(0, 1 / np.sqrt(FEAT_DIM * LFR_M), (FEAT_DIM * LFR_M, vocab))
    weights[:, tok["<|zh|>"]:] = -1.0  # tags only in the query frames, as in the real model
    bias = np.zeros(vocab)
    bias[0] = 1.5  # the blank wins most frames
    bias[1:3] = -20.0
    nodes = [
        helper.make_node("Gather", ["lang_table", "language"], ["q_lang"], axis=0),
        helper.make_node("Gather", ["itn_table", "text_norm"], ["q_itn"], axis=0),
        helper.make_node("MatMul", ["x", "w"], ["xw"]),
        helper.make_node("Add", ["xw", "b"], ["frames0"]),
        # x_length takes part (times zero) so that it is a real input of the graph.
        helper.make_node("Cast", ["x_length"], ["len_f"], to=TensorProto.FLOAT),
        helper.make_node("Unsqueeze", ["len_f", "axes12"], ["len_3d"]),
        helper.make_node("Mul", ["len_3d", "zero"], ["len_zero"]),
        helper.make_node("Add", ["frames0", "len_zero"], ["frames"]),
        helper.make_node("Concat", ["q_lang", "q_itn", "frames"], ["logits"], axis=1),
    ]
    inits = [
        tensor("lang_table", lang),
        tensor("itn_table", itn),
        tensor("w", weights),
        tensor("b", bias),
        tensor("zero", [0.0]),
        numpy_helper.from_array(np.array([1, 2], dtype=np.int64), "axes12"),
    ]
    return helper.make_graph(
        nodes,
        "sense-voice-test",
        [
            helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", "T", FEAT_DIM * LFR_M]),
            helper.make_tensor_value_info("x_length", TensorProto.INT32, ["N"]),
            helper.make_tensor_value_info("language", TensorProto.INT32, ["N"]),
            helper.make_tensor_value_info("text_norm", TensorProto.INT32, ["N"]),
        ],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["N", "T", vocab])],
        inits,
    )


def sense_voice_meta():
    dim = FEAT_DIM * LFR_M
    meta = {
        "lfr_window_size": LFR_M,
        "lfr_window_shift": LFR_N,
        "normalize_samples": 0,
        # Log-mel energies of speech scaled to 16-bit are about 5 to 20.
        "neg_mean": ",".join(["-12.0"] * dim),
        "inv_stddev": ",".join(["0.25"] * dim),
        "model_type": "sense_voice_ctc",
        "version": "2",
        "model_author": "kikitori-tests",
        "maintainer": "kikitori-tests",
        "vocab_size": len(SV_PIECES),
        "comment": "test model with random weights",
        "with_itn": SV_WITH_ITN,
        "without_itn": SV_WITHOUT_ITN,
        "url": "test model with random weights",
    }
    for name, lid in SV_LANG_IDS.items():
        meta[f"lang_{name}"] = lid
    return meta


def write_sense_voice(out, meta):
    os.makedirs(out, exist_ok=True)
    save(sense_voice_graph(np.random.default_rng(4)), meta, os.path.join(out, "model.onnx"))
    with open(os.path.join(out, "tokens.txt"), "w", encoding="utf-8") as f:
        for i, p in enumerate(SV_PIECES):
            f.write(f"{p} {i}\n")


def without(meta, key):
    return {k: v for k, v in meta.items() if k != key}


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: make-test-onnx-models.py OUT_DIR")
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    seg = segmentation_graph(np.random.default_rng(1))
    emb = embedding_graph(np.random.default_rng(2))
    save(seg, segmentation_meta(), os.path.join(out, "pyannote-segmentation.onnx"))
    save(seg, without(segmentation_meta(), "window_size"), os.path.join(out, "pyannote-segmentation-no-window-size.onnx"))
    rank2 = segmentation_graph(np.random.default_rng(1), rank2_input=True)
    save(rank2, segmentation_meta(), os.path.join(out, "pyannote-segmentation-rank2-input.onnx"))
    save(emb, embedding_meta(), os.path.join(out, "nemo-speaker-embedding.onnx"))
    save(emb, without(embedding_meta(), "output_dim"), os.path.join(out, "nemo-speaker-embedding-no-output-dim.onnx"))
    save(emb, {**embedding_meta(), "framework": "other"}, os.path.join(out, "nemo-speaker-embedding-not-nemo.onnx"))
    write_transducer(os.path.join(out, "nemo-transducer"))
    write_sense_voice(os.path.join(out, "sense-voice"), sense_voice_meta())
    write_sense_voice(os.path.join(out, "sense-voice-no-lang-ja"), without(sense_voice_meta(), "lang_ja"))


if __name__ == "__main__":
    main()
