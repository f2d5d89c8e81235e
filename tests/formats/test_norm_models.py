"""Tests of model folders fed by a final norm (tests/data/models/norms, written
by transformers, each head confirmed against the model's own forward pass
when it was made): the planted classes' verdicts over the norm's outputs
and over R^d; every unargmaxable class's certificate checked here from the
tensors read straight from the bytes, and every argmaxable class's witness
fed through the norm and the head in 50-digit decimals from an h the norm
turns into it."""

import decimal
import json
import unittest
from fractions import Fraction as F

from reviews.argmax.check import check_layer
from reviews.formats.layers import read_model
from tests.support.models import model, rows, safetensors_tensor

# (folder, the head's tensor, its bias, the norm's prefix, LayerNorm?, 1 + weight?)
FOLDERS = {
    "gpt2": ("transformer.wte.weight", None, "transformer.ln_f", True, False),
    "opt": ("model.decoder.embed_tokens.weight", None, "model.decoder.final_layer_norm", True,
            False),
    "bloom": ("transformer.word_embeddings.weight", None, "transformer.ln_f", True, False),
    "bert-mlm": ("bert.embeddings.word_embeddings.weight", "cls.predictions.bias",
                 "cls.predictions.transform.LayerNorm", True, False),
    "llama": ("lm_head.weight", None, "model.norm", False, False),
    "gemma": ("model.embed_tokens.weight", None, "model.norm", False, True),
}
# Planted (README): 5 wins only outside the ball, 6 only off sum z = 0 (the
# LayerNorm folders), 7 never; in the RMSNorm folders 5 is s e_3 where g_3 = 0.
OUTSIDE, OFF_PLANE, NEVER = 5, 6, 7
_DIGITS = decimal.Context(prec=50)


def _folder(name):
    """(W, b or None, g, beta or None, eps, layernorm) read with json and struct alone."""
    head, bias, norm, layernorm, plus_one = FOLDERS[name]
    path = model("norms", name, "model.safetensors")
    weights = [[F(v) for v in row] for row in rows(*safetensors_tensor(path, head))]
    gains = [F(v) + plus_one for v in safetensors_tensor(path, norm + ".weight")[1]]
    shifts = ([F(v) for v in safetensors_tensor(path, norm + ".bias")[1]] if layernorm
              else None)
    bias = None if bias is None else [F(v) for v in safetensors_tensor(path, bias)[1]]
    with open(model("norms", name, "config.json")) as handle:
        config = json.load(handle)
    eps = config.get("layer_norm_epsilon", config.get("layer_norm_eps",
                                                       config.get("rms_norm_eps", 1e-5)))
    return weights, bias, gains, shifts, decimal.Decimal(repr(eps)), layernorm


def _certified(weights, bias, gains, shifts, layernorm, result):
    """c <= 0 and c^2 >= d |u|^2 - (sum u)^2 (or d |u|^2), computed here."""
    i, d = result.index, len(gains)
    bias = bias or [0] * len(weights)
    shifts = shifts or [0] * d
    u, c = [F(0)] * d, F(0)
    for j, lam in result.terms:
        difference = [a - b for a, b in zip(weights[i], weights[j])]
        u = [x + lam * g * a for x, g, a in zip(u, gains, difference)]
        c += lam * (bias[i] - bias[j] + sum(a * s for a, s in zip(difference, shifts)))
    square = d * sum(x * x for x in u) - (sum(u) ** 2 if layernorm else 0)
    return c <= 0 and c * c >= square


def _wins_through_the_norm(weights, bias, gains, shifts, eps, layernorm, index, y):
    """Whether class ``index`` has the largest logit at norm(h), h = s z for
    the z with beta + g * z = y (0 where g_k = 0), computed in 50 digits."""
    d = len(gains)
    shifts = shifts or [0] * d
    z = [(v - s) / g if g else F(0) for v, g, s in zip(y, gains, shifts)]
    square = sum(v * v for v in z)
    with decimal.localcontext(_DIGITS):
        scale = (d * eps / (d - decimal.Decimal(square.numerator)
                            / square.denominator)).sqrt()
        h = [scale * decimal.Decimal(v.numerator) / v.denominator for v in z]
        mean = sum(h) / d if layernorm else 0
        spread = sum((v - mean) ** 2 for v in h) / d
        normed = [(v - mean) / (spread + eps).sqrt() for v in h]
        out = [decimal.Decimal(s.numerator) / s.denominator
               + decimal.Decimal(g.numerator) / g.denominator * v
               for s, g, v in zip(shifts, gains, normed)]
        logits = [sum(decimal.Decimal(w.numerator) / w.denominator * v for w, v in zip(row, out))
                  + (decimal.Decimal(b.numerator) / b.denominator if bias else 0)
                  for row, b in zip(weights, bias or [0] * len(weights))]
    return all(logits[index] > value + decimal.Decimal("1e-30")
               for j, value in enumerate(logits) if j != index)


class TestNormFolders(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.checked = {}
        for name in FOLDERS:
            layer = read_model(model("norms", name), norm="auto")
            cls.checked[name] = (layer, check_layer(layer.weights, layer.bias,
                                                    inputs=layer.norm),
                                 check_layer(layer.weights, layer.bias))

    def test_another_layer_s_bias_of_as_many_values_is_not_the_head_s(self):
        # 24 classes = 3 d: GPT-2's c_attn.bias and BLOOM's query_key_value.bias
        # have one value per class, beside their own .weight.
        for name in ("gpt2", "bloom"):
            notes = []
            with self.subTest(name=name):
                layer = read_model(model("norms", name), note=notes.append)
                self.assertIsNone(layer.bias)
                self.assertTrue(any("is its own layer's (the .weight beside it is not the head)"
                                    in line for line in notes), notes)
        self.assertEqual(self.checked["bert-mlm"][0].bias_tensor.name, "cls.predictions.bias")

    def test_each_folder_names_its_final_norm(self):
        for name, (_, _, norm, layernorm, plus_one) in FOLDERS.items():
            with self.subTest(name=name):
                read = self.checked[name][0].norm
                self.assertEqual((read.kind, read.names), (
                    "layernorm" if layernorm else "rmsnorm",
                    (("1 + " if plus_one else "") + norm + ".weight",
                     norm + ".bias" if layernorm else None)))

    def test_the_planted_classes(self):
        for name, (_, _, _, layernorm, _) in FOLDERS.items():
            with self.subTest(name=name):
                _, normed, free = self.checked[name]
                planted = (OUTSIDE, OFF_PLANE, NEVER) if layernorm else (OUTSIDE, NEVER)
                self.assertEqual([normed[i].argmaxable for i in planted], [False] * len(planted))
                self.assertEqual([free[i].argmaxable for i in planted],
                                 [True] * (len(planted) - 1) + [False])

    def test_unargmaxable_classes_have_the_ball_s_certificate_computed_here(self):
        for name in FOLDERS:
            weights, bias, gains, shifts, _, layernorm = _folder(name)
            with self.subTest(name=name):
                unargmaxable = [r for r in self.checked[name][1] if not r.argmaxable]
                self.assertTrue(unargmaxable)
                self.assertTrue(all(_certified(weights, bias, gains, shifts, layernorm, r)
                                    for r in unargmaxable))

    def test_argmaxable_classes_win_through_the_real_norm(self):
        for name in FOLDERS:
            weights, bias, gains, shifts, eps, layernorm = _folder(name)
            with self.subTest(name=name):
                argmaxable = [r for r in self.checked[name][1] if r.argmaxable]
                self.assertTrue(argmaxable)
                self.assertTrue(all(_wins_through_the_norm(weights, bias, gains, shifts, eps,
                                                           layernorm, r.index, r.witness)
                                    for r in argmaxable))

    def test_the_rmsnorm_heads_answer_as_r_d_for_the_rows_times_g(self):
        for name in ("llama", "gemma"):
            weights, _, gains, _, _, _ = _folder(name)
            scaled = [[w * g for w, g in zip(row, gains)] for row in weights]
            with self.subTest(name=name):
                self.assertEqual([r.argmaxable for r in self.checked[name][1]],
                                 [r.argmaxable for r in check_layer(scaled)])


if __name__ == "__main__":
    unittest.main()
