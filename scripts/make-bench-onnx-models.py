#!/usr/bin/env python3
"""Writes a NeMo transducer with the published shapes of Parakeet TDT 0.6B and a SenseVoice CTC model
with SenseVoice-small's shapes (random int8 weights) for `npm run bench:speech`: an encoder's cost
depends on its shapes, not its weights.

Usage: make-bench-onnx-models.py OUT_DIR   (Debian's /usr/bin/python3 with python3-onnx, python3-numpy)

Shapes (NeMo FastConformer, parakeet-tdt-0.6b): 128 mel features; dw-striding subsampling by 8 with 256
channels; 24 conformer layers of width 1024 with 8 heads, feed-forward 4096 (two half-steps), a
convolution module (pointwise 1024 -> 2048, GLU, depthwise kernel 9, pointwise 1024 -> 1024); the
prediction network's width 640 and a vocabulary of 8192 pieces plus the blank. The linear layers are
int8 (DynamicQuantizeLinear + MatMulInteger, as onnxruntime's quantize_dynamic writes them), the
convolutions float. Approximations, said by the bench: the relative-position attention's position term
is computed over T positions instead of 2T-1 (no rel-shift), and the prediction network's two LSTM
layers are an embedding lookup (a few hundred small steps per minute, not the cost that matters).

SenseVoice-small (FunASR SenseVoiceEncoderSmall): LFR features 560 (80 x 7), 4 query frames in front,
1 + 49 + 20 SAN-M layers of width 512 with 4 heads, feed-forward 2048 and an FSMN memory block
(depthwise kernel 11 over the values), a CTC layer over 25055 pieces; sherpa-onnx's metadata keys.
"""

import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 13
FEAT = 128
D = 1024
HEADS = 8
FF = 4096
LAYERS = 24
SUB_CH = 256
KERNEL = 9
PRED = 640
VOCAB = 8192

rng = np.random.default_rng(7)
inits = []
nodes = []
counter = [0]


def fresh():
    """Starts a new graph's node and initializer lists."""
    inits.clear()
    nodes.clear()


def name(prefix):
    counter[0] += 1
    return f"{prefix}_{counter[0]}"


def const(array, dtype=np.float32, prefix="c"):
    n = name(prefix)
    inits.append(numpy_helper.from_array(np.asarray(array, dtype=dtype), n))
    return n


def node(op, inputs, **attrs):
    out = name(op.lower())
    nodes.append(helper.make_node(op, inputs, [out], **attrs))
    return out


def linear_int8(x, n_in, n_out):
    """x (..., n_in) float -> (..., n_out): dynamic int8 quantization of x, int8 weights, float bias."""
    w = rng.integers(-127, 128, (n_in, n_out), dtype=np.int8)
    w_name = const(w, np.int8, "w8")
    w_zp = const(np.array(0, dtype=np.int8), np.int8, "wzp")
    xq, xs, xzp = name("xq"), name("xs"), name("xzp")
    nodes.append(helper.make_node("DynamicQuantizeLinear", [x], [xq, xs, xzp]))
    # quantize_dynamic pairs uint8 activations with int8 weights.
    acc = node("MatMulInteger", [xq, w_name, xzp, w_zp])
    f = node("Cast", [acc], to=TensorProto.FLOAT)
    scale = node("Mul", [xs, const(np.array(1.0 / (127 * np.sqrt(n_in)), dtype=np.float32))])
    y = node("Mul", [f, scale])
    return node("Add", [y, const(rng.normal(0, 0.01, n_out))])


def layer_norm(x):
    mean = node("ReduceMean", [x], axes=[-1])
    centred = node("Sub", [x, mean])
    var = node("ReduceMean", [node("Mul", [centred, centred])], axes=[-1])
    std = node("Sqrt", [node("Add", [var, const([1e-5])])])
    return node("Div", [centred, std])


def swish(x):
    return node("Mul", [x, node("Sigmoid", [x])])


def feed_forward(x):
    h = swish(linear_int8(layer_norm(x), D, FF))
    return node("Add", [x, node("Mul", [linear_int8(h, FF, D), const([0.5])])])


def attention(x, d=D, n_heads=HEADS, rel_pos=True):
    """x (N, T, d): multi-head self-attention (Parakeet: with the position term over T), residual added."""
    h = layer_norm(x)
    dk = d // n_heads
    shape = const(np.array([0, 0, n_heads, dk], dtype=np.int64), np.int64)

    def heads(t):
        return node("Transpose", [node("Reshape", [t, shape])], perm=[0, 2, 1, 3])

    q = heads(linear_int8(h, d, d))
    k = heads(linear_int8(h, d, d))
    v_flat = linear_int8(h, d, d)
    v = heads(v_flat)
    qu = node("Add", [q, const(rng.normal(0, 0.02, (n_heads, 1, dk)))])
    scores = node("MatMul", [qu, node("Transpose", [k], perm=[0, 1, 3, 2])])
    if rel_pos:
        p = heads(linear_int8(h, d, d))  # the position projection
        qv = node("Add", [q, const(rng.normal(0, 0.02, (n_heads, 1, dk)))])
        scores = node("Add", [scores, node("MatMul", [qv, node("Transpose", [p], perm=[0, 1, 3, 2])])])
    scores = node("Mul", [scores, const([1.0 / np.sqrt(dk)])])
    ctx = node("MatMul", [node("Softmax", [scores], axis=-1), v])
    merged = node("Reshape", [node("Transpose", [ctx], perm=[0, 2, 1, 3]), const(np.array([0, 0, d], dtype=np.int64), np.int64)])
    out = linear_int8(merged, d, d)
    if not rel_pos:
        # SAN-M's FSMN memory block: a depthwise convolution over the values, added to the output.
        t = node("Transpose", [v_flat], perm=[0, 2, 1])
        fsmn = node("Conv", [t, const(rng.normal(0, 0.2, (d, 1, 11)))], group=d, pads=[5, 5])
        out = node("Add", [out, node("Transpose", [fsmn], perm=[0, 2, 1])])
    return node("Add", [x, out])


def conv_module(x):
    h = linear_int8(layer_norm(x), D, 2 * D)
    a, b = name("glu_a"), name("glu_b")
    nodes.append(helper.make_node("Split", [h], [a, b], axis=-1))
    g = node("Mul", [a, node("Sigmoid", [b])])
    t = node("Transpose", [g], perm=[0, 2, 1])  # (N, D, T)
    dw = node("Conv", [t, const(rng.normal(0, 0.3, (D, 1, KERNEL)))], group=D, pads=[KERNEL // 2, KERNEL // 2])
    bn = node("Add", [node("Mul", [dw, const(np.ones((D, 1)))]), const(np.zeros((D, 1)))])
    s = node("Transpose", [swish(bn)], perm=[0, 2, 1])
    return node("Add", [x, linear_int8(s, D, D)])


def encoder():
    """audio_signal (N, 128, T), length (N,) -> outputs (N, 1024, T/8), encoded_lengths (N,)."""
    fresh()
    x = node("Unsqueeze", ["audio_signal", const(np.array([1], np.int64), np.int64)])  # (N, 1, F, T)
    x = node("Transpose", [x], perm=[0, 1, 3, 2])  # (N, 1, T, F)
    x = node("Relu", [node("Conv", [x, const(rng.normal(0, 0.3, (SUB_CH, 1, 3, 3)))], strides=[2, 2], pads=[1, 1, 1, 1])])
    for _ in range(2):
        x = node("Conv", [x, const(rng.normal(0, 0.3, (SUB_CH, 1, 3, 3)))], strides=[2, 2], pads=[1, 1, 1, 1], group=SUB_CH)
        x = node("Relu", [node("Conv", [x, const(rng.normal(0, 0.06, (SUB_CH, SUB_CH, 1, 1)))])])
    x = node("Transpose", [x], perm=[0, 2, 1, 3])  # (N, T/8, C, F/8)
    x = node("Reshape", [x, const(np.array([0, 0, SUB_CH * FEAT // 8], dtype=np.int64), np.int64)])
    x = linear_int8(x, SUB_CH * FEAT // 8, D)
    for _ in range(LAYERS):
        x = feed_forward(x)
        x = attention(x)
        x = conv_module(x)
        x = feed_forward(x)
        x = layer_norm(x)
    out = helper.make_node("Transpose", [x], ["outputs"], perm=[0, 2, 1])
    nodes.append(out)
    # ceil(length / 8), as three stride-2 convolutions with padding 1 give.
    one = const(np.array(1, np.int64), np.int64)
    two = const(np.array(2, np.int64), np.int64)
    cur = "length"
    for _ in range(2):
        cur = node("Div", [node("Add", [cur, one]), two])
    nodes.append(helper.make_node("Div", [node("Add", [cur, one]), two], ["encoded_lengths"]))
    return helper.make_graph(
        nodes,
        "parakeet-shaped-encoder",
        [
            helper.make_tensor_value_info("audio_signal", TensorProto.FLOAT, ["N", FEAT, "T"]),
            helper.make_tensor_value_info("length", TensorProto.INT64, ["N"]),
        ],
        [
            helper.make_tensor_value_info("outputs", TensorProto.FLOAT, ["N", D, "T2"]),
            helper.make_tensor_value_info("encoded_lengths", TensorProto.INT64, ["N"]),
        ],
        list(inits),
    )


def decoder():
    state = [2, "N", PRED]
    emb = numpy_helper.from_array(rng.normal(0, 1, (VOCAB + 1, PRED)).astype(np.float32), "embedding")
    half = numpy_helper.from_array(np.array([0.5], np.float32), "half")
    ns = [
        helper.make_node("Gather", ["embedding", "targets"], ["e"]),
        helper.make_node("Tanh", ["e"], ["e2"]),
        helper.make_node("Transpose", ["e2"], ["outputs"], perm=[0, 2, 1]),
        helper.make_node("Identity", ["target_length"], ["prednet_lengths"]),
        helper.make_node("Mul", ["states.1", "half"], ["states"]),
        helper.make_node("Mul", ["onnx::Slice_3", "half"], ["162"]),
    ]
    return helper.make_graph(
        ns,
        "parakeet-shaped-decoder",
        [
            helper.make_tensor_value_info("targets", TensorProto.INT32, ["N", 1]),
            helper.make_tensor_value_info("target_length", TensorProto.INT32, ["N"]),
            helper.make_tensor_value_info("states.1", TensorProto.FLOAT, state),
            helper.make_tensor_value_info("onnx::Slice_3", TensorProto.FLOAT, state),
        ],
        [
            helper.make_tensor_value_info("outputs", TensorProto.FLOAT, ["N", PRED, 1]),
            helper.make_tensor_value_info("prednet_lengths", TensorProto.INT32, ["N"]),
            helper.make_tensor_value_info("states", TensorProto.FLOAT, state),
            helper.make_tensor_value_info("162", TensorProto.FLOAT, state),
        ],
        [emb, half],
    )


def joiner():
    bias = np.zeros(VOCAB + 1, np.float32)
    bias[-1] = 2.6  # the blank wins most frames, as in a real model
    t = [
        numpy_helper.from_array(rng.normal(0, 1 / np.sqrt(D), (D, PRED)).astype(np.float32), "we"),
        numpy_helper.from_array(rng.normal(0, 1 / np.sqrt(PRED), (PRED, PRED)).astype(np.float32), "wd"),
        numpy_helper.from_array(rng.normal(0, 1 / np.sqrt(PRED), (PRED, VOCAB + 1)).astype(np.float32), "wo"),
        numpy_helper.from_array(bias, "bo"),
        numpy_helper.from_array(np.array([2], np.int64), "axes2"),
    ]
    ns = [
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
    return helper.make_graph(
        ns,
        "parakeet-shaped-joiner",
        [
            helper.make_tensor_value_info("encoder_outputs", TensorProto.FLOAT, ["N", D, 1]),
            helper.make_tensor_value_info("decoder_outputs", TensorProto.FLOAT, ["N", PRED, 1]),
        ],
        [helper.make_tensor_value_info("outputs", TensorProto.FLOAT, ["N", 1, 1, VOCAB + 1])],
        t,
    )


SV_FEAT = 560
SV_D = 512
SV_FF = 2048
SV_LAYERS = 1 + 49 + 20
SV_VOCAB = 25055
SV_LANGS = {"auto": 0, "zh": 3, "en": 4, "yue": 7, "ja": 11, "ko": 12, "nospeech": 13}


def sense_voice():
    """x (N, T, 560), x_length, language, text_norm (N,) int32 -> logits (N, T + 4, 25055)."""
    fresh()
    table = const(rng.normal(0, 1, (16, SV_FEAT)))
    lang = node("Unsqueeze", [node("Gather", [table, "language"]), const(np.array([1], np.int64), np.int64)])
    norm = node("Unsqueeze", [node("Gather", [table, "text_norm"]), const(np.array([1], np.int64), np.int64)])
    two = node("Unsqueeze", [node("Gather", [table, const(np.array([[1, 2]], np.int64), np.int64)]), const(np.array([0], np.int64), np.int64)])
    n = node("Slice", [node("Shape", ["x"]), const(np.array([0], np.int64), np.int64), const(np.array([1], np.int64), np.int64)])
    emo = node("Expand", [node("Squeeze", [two, const(np.array([0], np.int64), np.int64)]), node("Concat", [n, const(np.array([2, SV_FEAT], np.int64), np.int64)], axis=0)])
    x = node("Concat", [lang, emo, norm, "x"], axis=1)
    # x_length takes part (times zero) so that it is a real input of the graph.
    lz = node("Mul", [node("Cast", ["x_length"], to=TensorProto.FLOAT), const([0.0])])
    x = node("Add", [x, node("Unsqueeze", [lz, const(np.array([1, 2], np.int64), np.int64)])])
    x = linear_int8(x, SV_FEAT, SV_D)
    for _ in range(SV_LAYERS):
        x = attention(x, SV_D, 4, rel_pos=False)
        h = node("Relu", [linear_int8(layer_norm(x), SV_D, SV_FF)])
        x = node("Add", [x, linear_int8(h, SV_FF, SV_D)])
    x = layer_norm(x)
    logits = linear_int8(x, SV_D, SV_VOCAB)
    bias = np.zeros(SV_VOCAB, np.float32)
    bias[0] = 3.0  # the blank wins most frames
    nodes.append(helper.make_node("Add", [logits, const(bias)], ["logits"]))
    return helper.make_graph(
        nodes,
        "sense-voice-small-shaped",
        [
            helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", "T", SV_FEAT]),
            helper.make_tensor_value_info("x_length", TensorProto.INT32, ["N"]),
            helper.make_tensor_value_info("language", TensorProto.INT32, ["N"]),
            helper.make_tensor_value_info("text_norm", TensorProto.INT32, ["N"]),
        ],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["N", "T", SV_VOCAB])],
        list(inits),
    )


def write_sense_voice(out):
    os.makedirs(out, exist_ok=True)
    meta = {
        "lfr_window_size": 7,
        "lfr_window_shift": 6,
        "normalize_samples": 0,
        "neg_mean": ",".join(["-12.0"] * SV_FEAT),
        "inv_stddev": ",".join(["0.25"] * SV_FEAT),
        "model_type": "sense_voice_ctc",
        "version": "2",
        "model_author": "kikitori-bench",
        "maintainer": "kikitori-bench",
        "vocab_size": SV_VOCAB,
        "comment": "SenseVoice-small shapes, random int8 weights",
        "with_itn": 14,
        "without_itn": 15,
    }
    for k, v in SV_LANGS.items():
        meta[f"lang_{k}"] = v
    save(sense_voice(), meta, os.path.join(out, "model.int8.onnx"))
    tags = [f"<|{k}|>" for k in SV_LANGS if k != "auto"] + ["<|NEUTRAL|>", "<|Speech|>", "<|withitn|>", "<|woitn|>"]
    with open(os.path.join(out, "tokens.txt"), "w", encoding="utf-8") as f:
        pieces = ["<unk>", "<s>", "</s>"] + tags
        pieces += [f"{'▁' if i % 3 == 0 else ''}q{i}" for i in range(SV_VOCAB - len(pieces))]
        for i, p in enumerate(pieces):
            f.write(f"{p} {i}\n")


def save(graph, meta, path):
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="kikitori-bench")
    model.ir_version = 7
    for k, v in meta.items():
        p = model.metadata_props.add()
        p.key, p.value = k, str(v)
    onnx.save(model, path)


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: make-bench-onnx-models.py OUT_DIR   (writes OUT_DIR/parakeet and OUT_DIR/sense-voice)")
    write_sense_voice(os.path.join(sys.argv[1], "sense-voice"))
    out = os.path.join(sys.argv[1], "parakeet")
    os.makedirs(out, exist_ok=True)
    meta = {
        "vocab_size": VOCAB,
        "normalize_type": "per_feature",
        "subsampling_factor": 8,
        "pred_rnn_layers": 2,
        "pred_hidden": PRED,
        "feat_dim": FEAT,
        "model_type": "EncDecRNNTBPEModel",
        "version": "2",
        "model_author": "kikitori-bench",
        "comment": "Parakeet TDT 0.6B shapes, random int8 weights",
    }
    save(encoder(), meta, os.path.join(out, "encoder.int8.onnx"))
    save(decoder(), {}, os.path.join(out, "decoder.int8.onnx"))
    save(joiner(), {}, os.path.join(out, "joiner.int8.onnx"))
    with open(os.path.join(out, "tokens.txt"), "w", encoding="utf-8") as f:
        for i in range(VOCAB):
            f.write(f"{'▁' if i % 3 == 0 else ''}p{i} {i}\n")
        f.write(f"<blk> {VOCAB}\n")


if __name__ == "__main__":
    main()
