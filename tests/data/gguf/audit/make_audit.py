"""A seeded head with classes near the hull's boundary, written at several GGUF types."""
import numpy as np, gguf
rng = np.random.default_rng(42)
C, d = 120, 32
w = rng.standard_normal((C, d)).astype(np.float64)
# Classes 90..119: a point between two others, moved toward the origin (inside
# the hull of 90 Gaussian rows) by a factor 1 - 10**-4 to 1 - 10**-1.5.
for k in range(90, C):
    j = rng.choice(90, 2, replace=False); t = rng.uniform(0.2, 0.8)
    w[k] = (1 - 10 ** rng.uniform(-4, -1.5)) * (t * w[j[0]] + (1 - t) * w[j[1]])
w = w.astype(np.float32)

tokens = ["tok%03d" % i for i in range(C)]
for name in ("F32", "F16", "BF16", "Q8_0", "Q4_0"):
    qtype = getattr(gguf.GGMLQuantizationType, name)
    writer = gguf.GGUFWriter("head_%s.gguf" % name.lower(), "llama")
    writer.add_tokenizer_model("llama")
    writer.add_token_list(tokens)
    data = gguf.quants.quantize(w, qtype) if name not in ("F32", "F16") else w.astype(np.float16 if name == "F16" else np.float32)
    writer.add_tensor("output.weight", data, raw_dtype=qtype)
    writer.write_header_to_file(); writer.write_kv_data_to_file(); writer.write_tensors_to_file(); writer.close()
print("ok")
