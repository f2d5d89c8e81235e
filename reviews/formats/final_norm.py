"""The final norm that feeds a model's head, found from its config.json, or named.

Most language models put a LayerNorm or an RMSNorm right before the head,
which then sees only what the norm outputs (reviews.argmax.question:
LayerNorm, RMSNorm).  A model folder says which norm that is: its
config.json's ``model_type`` names the architecture, and transformers
names the norm's tensors the same way in every model of it:

    gpt2, gpt_neo, gpt_neox, codegen   transformer.ln_f / gpt_neox.final_layer_norm (LayerNorm)
    opt                 model.decoder.final_layer_norm (LayerNorm), where
                        do_layer_norm_before is true and no project_out follows
    bloom               transformer.ln_f (LayerNorm)
    bert, roberta, xlm-roberta, camembert, electra
                        the masked-LM head's own LayerNorm, after its dense
                        layer and activation: cls.predictions.transform.LayerNorm,
                        lm_head.layer_norm, generator_predictions.LayerNorm
    llama, mistral, mixtral, qwen2, qwen3
                        model.norm (RMSNorm)
    gemma, gemma2, gemma3_text
                        model.norm (RMSNorm of 1 + weight)

It feeds only the architecture's language-model head (a classifier's head
is fed by a pooler or a dense layer): ``feeding_norm`` gives the norm
where the head chosen is one of those, with the tensors' names and eps
(``layer_norm_epsilon``, ``layer_norm_eps``, ``rms_norm_eps``), and a note
in every case: which norm was found, or why none was.  A name may carry
any prefix the saving model gave it (``ln_f.weight`` from GPT2Model).

    feeding_norm   the LayerNorm or RMSNorm that feeds a folder's head, or None, with a note
    named_norm     a LayerNorm or RMSNorm read from tensors named by the user
"""

import decimal
import math
from collections import namedtuple
from fractions import Fraction

from reviews.argmax.question import LayerNorm, RMSNorm
from reviews.errors import InputError
from reviews.exact import exact_text
from reviews.shown import excerpt, shown_shape

__all__ = ["feeding_norm", "named_norm"]

_Rule = namedtuple("_Rule", "kind norm heads eps plus_one", defaults=(False,))

_LAYERNORM_LM = ("lm_head.weight",)
_RULES = {
    "gpt2": _Rule("layernorm", "transformer.ln_f", _LAYERNORM_LM + ("transformer.wte.weight",),
                  "layer_norm_epsilon"),
    "gpt_neo": _Rule("layernorm", "transformer.ln_f",
                     _LAYERNORM_LM + ("transformer.wte.weight",), "layer_norm_epsilon"),
    "codegen": _Rule("layernorm", "transformer.ln_f",
                     _LAYERNORM_LM + ("transformer.wte.weight",), "layer_norm_epsilon"),
    "gpt_neox": _Rule("layernorm", "gpt_neox.final_layer_norm", ("embed_out.weight",),
                      "layer_norm_eps"),
    "opt": _Rule("layernorm", "model.decoder.final_layer_norm",
                 _LAYERNORM_LM + ("model.decoder.embed_tokens.weight",), None),
    "bloom": _Rule("layernorm", "transformer.ln_f",
                   _LAYERNORM_LM + ("transformer.word_embeddings.weight",),
                   "layer_norm_epsilon"),
    "bert": _Rule("layernorm", "cls.predictions.transform.LayerNorm",
                  ("cls.predictions.decoder.weight", "bert.embeddings.word_embeddings.weight"),
                  "layer_norm_eps"),
    "roberta": _Rule("layernorm", "lm_head.layer_norm",
                     ("lm_head.decoder.weight", "roberta.embeddings.word_embeddings.weight"),
                     "layer_norm_eps"),
    "xlm-roberta": _Rule("layernorm", "lm_head.layer_norm",
                         ("lm_head.decoder.weight",
                          "roberta.embeddings.word_embeddings.weight"), "layer_norm_eps"),
    "camembert": _Rule("layernorm", "lm_head.layer_norm",
                       ("lm_head.decoder.weight", "roberta.embeddings.word_embeddings.weight"),
                       "layer_norm_eps"),
    "electra": _Rule("layernorm", "generator_predictions.LayerNorm",
                     ("generator_lm_head.weight", "electra.embeddings.word_embeddings.weight"),
                     "layer_norm_eps"),
}
for _name in ("llama", "mistral", "mixtral", "qwen2", "qwen3"):
    _RULES[_name] = _Rule("rmsnorm", "model.norm",
                          _LAYERNORM_LM + ("model.embed_tokens.weight",), "rms_norm_eps")
for _name in ("gemma", "gemma2", "gemma3_text"):
    _RULES[_name] = _Rule("rmsnorm", "model.norm",
                          _LAYERNORM_LM + ("model.embed_tokens.weight",), "rms_norm_eps", True)
# OPT's nn.LayerNorm takes torch's default: its config.json names no eps.
_TORCH_EPS = decimal.Decimal("1e-5")
_PLUS_ONE = "1 + "   # a weight's name that stands for 1 plus the tensor


def _suffixed(names, wanted):
    """The name among ``names`` that is ``wanted`` or ends in "." + the part
    of it after its first component (a model saved without the model's
    prefix), or None; several is an error."""
    if wanted in names:
        return wanted
    tail = wanted.split(".", 1)[-1]
    found = [n for n in names if n == tail or n.endswith("." + tail)]
    if len(found) > 1:
        raise InputError("several tensors could be the final norm's %s: %s"
                         % (excerpt(wanted), ", ".join(map(excerpt, found))))
    return found[0] if found else None


def _is_head(name, heads):
    """Whether the head's tensor ``name`` is one of the rule's language-model heads."""
    return any(name == head or name == head.split(".", 1)[-1]
               or name.endswith("." + head.split(".", 1)[-1]) for head in heads)


def _values(model, name, dim, what):
    """The d exact values of the tensor ``name``: shape (d,), or (1, d) or
    (d, 1) as some exporters keep a norm's vectors."""
    array = model.array(name, what, "--norm-weight or --norm-bias")
    if sorted(array.shape, reverse=True) not in ([dim], [dim, 1]):
        raise InputError("%s: %s has shape %s, not the head's d = %d values of a norm's %s"
                         % (model.file_of(name), excerpt(name), shown_shape(array.shape),
                            dim, what))
    values = array.load()[0].tolist()
    bad = next((k for k, v in enumerate(values) if isinstance(v, float) and not
                math.isfinite(v)), None)
    if bad is not None:
        raise InputError("%s: %s[%d] is %r, not a finite number"
                         % (model.file_of(name), excerpt(name), bad, values[bad]))
    return values


def named_norm(model, kind, weight, bias, dim):
    """The norm of ``kind`` ("layernorm" or "rmsnorm") read from the tensors
    ``weight`` and ``bias`` (names, or None for 1 and 0) of ``model``
    (reviews.formats.folders.Model), exact, of dimension ``dim``; a
    weight named "1 + NAME" is 1 plus the tensor NAME, as Gemma's is (and
    as the norm a folder names is written in a report)."""
    if kind == "rmsnorm" and bias is not None:
        raise InputError("an RMSNorm has no bias: --norm-bias goes with --inputs layernorm")
    stored = weight[len(_PLUS_ONE):] if weight and weight.startswith(_PLUS_ONE) else weight
    gains, shifts = [None if name is None else _values(model, name, dim, what)
                     for name, what in ((stored, "weight"), (bias, "bias"))]
    if stored != weight:
        gains = [1 + Fraction(v) for v in gains]
    return _norm(kind, gains, shifts, None, (weight, bias))


def _norm(kind, gains, shifts, eps, names):
    """The exact LayerNorm (``shifts`` its bias) or RMSNorm of ``kind``."""
    if kind == "layernorm":
        return LayerNorm(gains, shifts, eps, names).exact()
    return RMSNorm(gains, eps, names).exact()


def feeding_norm(model, head, dim, note, where):
    """The LayerNorm or RMSNorm that feeds the head ``head`` (its weights'
    tensor name) of the model folder read as ``model``, of dimension
    ``dim``, or None; ``note`` is told which norm was found, or why none
    was (``where`` names the folder)."""
    config = model.config
    model_type = config.get("model_type") if isinstance(config, dict) else None
    rule = _RULES.get(model_type) if isinstance(model_type, str) else None
    if rule is None:
        note("%s: no final norm is known for %s: the head is checked over all of R^%d (its"
             " inputs may be fewer; --inputs layernorm or rmsnorm with --norm-weight asks"
             " about a norm's outputs)" % (where, "model_type %s" % excerpt(str(model_type))
                                           if model_type is not None else "a config.json"
                                           " without model_type", dim))
        return None
    if not _is_head(head, rule.heads):
        note("%s: the head %s is not %s's language-model head, which its final norm feeds:"
             " checked over all of R^%d" % (where, excerpt(head), model_type, dim))
        return None
    if model_type == "opt" and not _plain_opt(config, where, dim, note):
        return None
    names = model.names
    weight = _suffixed(names, rule.norm + ".weight")
    if weight is None:
        note("%s: %s's final norm %s is not in the folder: checked over all of R^%d"
             % (where, model_type, excerpt(rule.norm), dim))
        return None
    bias = _suffixed(names, rule.norm + ".bias") if rule.kind == "layernorm" else None
    eps = _eps(config, rule, where)
    gains = _values(model, weight, dim, "weight")
    if rule.plus_one:
        gains = [1 + Fraction(v) for v in gains]
    shifts = None if bias is None else _values(model, bias, dim, "bias")
    shown_weight = _PLUS_ONE + weight if rule.plus_one else weight
    norm = _norm(rule.kind, gains, shifts, eps, (shown_weight, bias))
    note("%s: the head's inputs are the outputs of %s's final %s %s (%s): checked over what"
         " it can output, the open ball of radius sqrt(d)%s; --inputs all asks over R^%d"
         % (where, model_type, "LayerNorm" if rule.kind == "layernorm" else "RMSNorm",
            excerpt(rule.norm), ", ".join(
                ["weight %s" % excerpt(shown_weight)] + (["bias %s" % excerpt(bias)] if bias
                                                          else []) + ["eps %s" % (
                                                              exact_text(Fraction(eps))
                                                              if eps is not None else
                                                              "not given")]),
            " in the hyperplane sum z = 0" if rule.kind == "layernorm" else "", dim))
    return norm


def _plain_opt(config, where, dim, note):
    """Whether an OPT's final LayerNorm feeds its head directly."""
    if config.get("do_layer_norm_before", True) is not True:
        note("%s: OPT with do_layer_norm_before = %s has no final norm before its head:"
             " checked over all of R^%d" % (where, config.get("do_layer_norm_before"), dim))
        return False
    projected = config.get("word_embed_proj_dim")
    if projected is not None and projected != config.get("hidden_size"):
        note("%s: OPT's project_out maps its final LayerNorm's outputs to the head's %s"
             " inputs, a linear image of the ball that is not asked: checked over all of"
             " R^%d" % (where, projected, dim))
        return False
    return True


def _eps(config, rule, where):
    """The norm's eps from config.json (a positive number), or None where it names none."""
    if rule.eps is None:
        return _TORCH_EPS
    eps = config.get(rule.eps)
    if eps is None:
        return None
    if isinstance(eps, bool) or not isinstance(eps, (int, decimal.Decimal)) or not eps > 0:
        raise InputError("%s: config.json has %s = %s; a norm's eps must be a positive number"
                         % (where, rule.eps, excerpt(str(eps))))
    return eps
