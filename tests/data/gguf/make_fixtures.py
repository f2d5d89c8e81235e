"""Write the .gguf fixtures of this folder and expected.json, with gguf-py.

Run with an interpreter that has numpy and gguf (gguf-py) installed, from
this folder:  python make_fixtures.py.  The tests do not run it: they read
what it wrote, without numpy or gguf.  See README.md.

expected.json holds, for each fixture, what gguf-py's own dequantize makes
of its head: computed once as gguf-py computes it (float32), and once by the
same gguf-py code with numpy's float32 replaced by float64, where every
product and sum of a dequantization is exact; the sha256 of each's values
as little-endian bytes, and a few values pinned as float.hex().
"""

import hashlib
import json
import types

import numpy as np
import gguf
import gguf.quants as quants
from gguf.constants import GGML_QUANT_SIZES, GGMLQuantizationType as T

ROWS = 40   # the classes
TOKENS = (["<unk>", "<s>", "</s>", "\u2581the", "\u2581of", "\u2581and", "\u2581to", "\u2581a",
           "\u2581in", "\u2581is", "\u65e5\u672c", "<0x0A>", "\u2581\"quoted\"", "tab\there"]
          + ["\u2581w%02d" % k for k in range(ROWS - 15)] + ["\u2581caf\u00e9"])
# Where each quantized type keeps its float16 scales (d, and m or dmin), in
# bytes from the start of a block.
SCALES = {"Q2_K": (80, 82), "Q3_K": (108,), "Q4_K": (0, 2), "Q5_K": (0, 2), "Q6_K": (208,)}
EVERY_VALUE_TYPE = {
    "test.uint8": (200, gguf.GGUFValueType.UINT8), "test.int8": (-100, gguf.GGUFValueType.INT8),
    "test.uint16": (60000, gguf.GGUFValueType.UINT16),
    "test.int16": (-30000, gguf.GGUFValueType.INT16),
    "test.uint32": (4000000000, gguf.GGUFValueType.UINT32),
    "test.int32": (-2000000000, gguf.GGUFValueType.INT32),
    "test.float32": (0.5, gguf.GGUFValueType.FLOAT32),
    "test.bool": (True, gguf.GGUFValueType.BOOL),
    "test.string": ("caf\u00e9", gguf.GGUFValueType.STRING),
    "test.uint64": (2 ** 63, gguf.GGUFValueType.UINT64),
    "test.int64": (-2 ** 62, gguf.GGUFValueType.INT64),
    "test.float64": (0.25, gguf.GGUFValueType.FLOAT64),
}


class _Wide(types.ModuleType):
    """numpy, with float32 standing for float64."""

    float32 = np.float64

    def __getattr__(self, name):
        return getattr(np, name)


def dequantized(raw, qtype, wide):
    """gguf-py's dequantize of a tensor's bytes (uint8, one row per class)."""
    quants.np = _Wide("numpy_wide") if wide else np
    try:
        return np.asarray(quants.dequantize(raw, qtype), dtype=np.float64 if wide else np.float32)
    finally:
        quants.np = np


def weights(rng, width):
    """Rows of normal floats, as float32."""
    return rng.standard_normal((ROWS, width)).astype(np.float32) * np.float32(0.05)


def random_blocks(rng, name, width):
    """Random bytes as blocks of ``name`` (any bytes are valid blocks but
    for their float16 scales): gguf-py cannot quantize the K-quants.  The
    scales d are drawn between 2**-10 and 2**-5, the dmin between 2**-22
    and 2**-16, so that d * scale * q - dmin * min needs more bits than a
    float32 has."""
    per_block, size = GGML_QUANT_SIZES[T[name]]
    raw = rng.integers(0, 256, (ROWS, width // per_block, size), dtype=np.uint8)
    for offset, (low, high) in zip(SCALES[name], ((2 ** -10, 2 ** -5), (2 ** -22, 2 ** -16))):
        scale = rng.uniform(low, high, raw.shape[:2]) * rng.choice([-1, 1], raw.shape[:2])
        halves = scale.astype("<f2").view(np.uint8)
        raw[:, :, offset:offset + 2] = halves.reshape(*raw.shape[:2], 2)
    return raw.reshape(ROWS, -1)


def writer(path, alignment=None, endian=gguf.GGUFEndian.LITTLE):
    w = gguf.GGUFWriter(path, "llama", endianess=endian)
    w.add_name("fixture")
    w.add_token_list(TOKENS)
    if alignment:
        w.add_custom_alignment(alignment)
    return w


def finish(w):
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


def expected_of(raw, qtype):
    # gguf-py views F32 and BF16 bytes as np.float32: they keep it.
    exact = dequantized(raw, qtype, qtype not in (T.F32, T.F16, T.BF16)).ravel()
    rounded = dequantized(raw, qtype, False).ravel()
    assert np.array_equal(exact.astype(np.float32), rounded)   # one rounding apart
    picks = sorted({0, 1, 255, exact.size - 1, int(np.argmax(exact)), int(np.argmin(exact))})
    return {"sha256": hashlib.sha256(exact.astype("<f8").tobytes()).hexdigest(),
            "float32_sha256": hashlib.sha256(rounded.astype("<f4").tobytes()).hexdigest(),
            "not_float32": int(np.sum(exact.astype(np.float32).astype(np.float64) != exact)),
            "values": {str(k): float(exact[k]).hex() for k in picks}}


def main():
    rng = np.random.default_rng(20251204)
    expected = {}

    def head(file, name, raw, qtype, shape, **more):
        expected[file] = dict({"tensor": name, "type": qtype.name, "shape": list(shape)},
                              **expected_of(raw, qtype), **more)

    # One head per type: output.weight, 40 x 256 (40 x 64 for the plain floats).
    for name in ("Q8_0", "Q4_0", "Q4_1", "Q5_0", "Q5_1", "Q2_K", "Q3_K", "Q4_K", "Q5_K", "Q6_K"):
        qtype = T[name]
        raw = (random_blocks(rng, name, 256) if name in SCALES
               else quants.quantize(weights(rng, 256), qtype))
        file = "head-%s.gguf" % name.lower()
        w = writer(file)
        w.add_tensor("output.weight", raw, raw_dtype=qtype)
        finish(w)
        head(file, "output.weight", raw, qtype, (ROWS, 256))
    # The F32 head's last row is the mean of its first two, exactly (all
    # three are float16 numbers): class 39 cannot be an argmax.
    plain = weights(rng, 64).astype(np.float16).astype(np.float32)
    plain[ROWS - 1] = (plain[0] + plain[1]) / 2
    for name, raw in (("F32", plain), ("F16", weights(rng, 64).astype(np.float16)),
                      ("BF16", quants.quantize(weights(rng, 64), T.BF16))):
        file = "head-%s.gguf" % name.lower()
        w = writer(file)
        if name == "BF16":
            w.add_tensor("output.weight", raw, raw_dtype=T.BF16)
        else:
            w.add_tensor("output.weight", raw)
        finish(w)
        head(file, "output.weight", raw.view(np.uint8), T[name], (ROWS, 64))

    # A tied model: token_embd.weight (Q8_0) and no output.weight.
    raw = quants.quantize(weights(rng, 256), T.Q8_0)
    w = writer("tied-q8_0.gguf")
    w.add_tensor("token_embd.weight", raw, raw_dtype=T.Q8_0)
    w.add_tensor("output_norm.weight", np.ones(256, dtype=np.float32))
    finish(w)
    head("tied-q8_0.gguf", "token_embd.weight", raw, T.Q8_0, (ROWS, 256))

    # An untied "Q4_K_M"-like model: token_embd Q4_K, output Q6_K, output.bias
    # F32, alignment 64, and a key of every value type, arrays nested too.
    embedding = random_blocks(rng, "Q4_K", 256)
    output = random_blocks(rng, "Q6_K", 256)
    bias = (rng.standard_normal(ROWS) * 0.1).astype(np.float32)
    w = writer("untied-q6_k.gguf", alignment=64)
    for key, (value, kind) in EVERY_VALUE_TYPE.items():
        w.add_key_value(key, value, kind)
    w.add_array("test.array.int32", [1, -2, 3])
    w.add_array("test.array.strings", ["x", "yz", ""])
    w.add_array("test.array.nested", [[1, 2], [3]])
    w.add_array("test.array.nested_strings", [["a"], ["b", "c"]])
    w.add_tensor("token_embd.weight", embedding, raw_dtype=T.Q4_K)
    w.add_tensor("output_norm.weight", np.ones(256, dtype=np.float32))
    w.add_tensor("output.weight", output, raw_dtype=T.Q6_K)
    w.add_tensor("output.bias", bias)
    finish(w)
    head("untied-q6_k.gguf", "output.weight", output, T.Q6_K, (ROWS, 256),
         bias_sha256=hashlib.sha256(bias.astype("<f8").tobytes()).hexdigest(),
         embedding=expected_of(embedding, T.Q4_K))

    # The same writer, big-endian: refused.
    w = writer("big-endian.gguf", endian=gguf.GGUFEndian.BIG)
    w.add_tensor("output.weight", np.ones((2, 4), dtype=np.float32))
    finish(w)

    expected["tokens"] = TOKENS
    with open("expected.json", "w") as handle:
        json.dump(expected, handle, indent=1, sort_keys=True)
        handle.write("\n")


if __name__ == "__main__":
    main()
