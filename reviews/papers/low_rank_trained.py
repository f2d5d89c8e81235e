"""The low-rank paper's "very infrequent", against a trained model's output layer.

The abstract says that in the 13 of 150 public LM/MT models with
unargmaxable tokens, "they are very infrequent and unlikely to impact model
quality".  Those models are not here (low-rank.13-of-150), so that is NOT
CHECKED.  What this module checks exactly is a trained softmax classifier's
output layer shipped in a PyPI package (reviews/data, PROVENANCE.md says
from where and under which licence): a morphology tagger's head, every
class decided by check_layer and every certificate checked again by
verify_all.  That takes most of a second, many times any other claim: its
claim runs only when selected.  The checks are used by
reviews.papers.low_rank_softmax, whose CLAIMS hold them.

    check_trained_layers    the exact counts on the shipped layers
    check_very_infrequent   the abstract's statement: NOT CHECKED, and why
    TRAINED_LAYERS          the shipped layers: file, package, what it is
"""

import hashlib
import os
from collections import namedtuple

from reviews.argmax.certified import verify_all
from reviews.argmax.check import check_layer
from reviews.claims import FAIL, NOT_CHECKED, PASS, Outcome, Row

__all__ = ["check_trained_layers", "check_very_infrequent", "TRAINED_LAYERS"]

TrainedLayer = namedtuple("TrainedLayer", "name package what sha256 unargmaxable")
TRAINED_LAYERS = (
    TrainedLayer("natasha_slovnet_morph_news_v1_head", "natasha 1.6.0 (MIT)",
                 "slovnet Russian morphology tagger's head, 753 tag bundles",
                 "30186f5d89cf25e0f74045da1f74d4d04214bf5ba569f77b125eba8de508e21d", 0),
)
_DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data")


def _path(layer, suffix):
    return os.path.join(_DATA, layer.name + suffix)


def _digest(path):
    with open(path, "rb") as handle:
        return hashlib.sha256(handle.read()).hexdigest()


def check_trained_layers():
    """Every class of each shipped layer decided, every certificate checked."""
    # Imported here: a run that does not select this claim need not load the readers.
    from reviews.formats.layers import read_layer
    from reviews.formats.vocab import read_vocab
    rows, holds = [], True
    for layer in TRAINED_LAYERS:
        path = _path(layer, ".npz")
        weights, bias = read_layer(path)
        tokens = read_vocab(_path(layer, ".tokens.txt"))
        results = check_layer(weights, bias, jobs=None)
        checked = verify_all(weights, bias, results)
        failing = [r.index for r in results if not r.argmaxable]
        holds = (holds and all(checked) and len(failing) == layer.unargmaxable
                 and _digest(path) == layer.sha256 and len(tokens) == len(weights))
        rows += [
            Row(layer.name, "%s; %s: C = %d, d = %d, %s" % (
                layer.package, layer.what, len(weights), len(weights[0]),
                "with bias" if bias is not None else "no bias")),
            Row("  exact", "%d of %d classes unargmaxable, %d argmaxable; %d of %d certificates"
                " checked again (verify_all)" % (len(failing), len(weights),
                                                 len(weights) - len(failing), sum(checked),
                                                 len(checked))),
        ]
        rows.append(Row("  file", "reviews/data/%s.npz, sha256 %s (reviews/data/PROVENANCE.md)"
                        % (layer.name, layer.sha256)))
    rows.append(Row("whose", "the count is this suite's own, decided here; the paper's \"very"
                    " infrequent\" is about its LM/MT models (low-rank.very-infrequent, NOT"
                    " CHECKED), which this layer is not: one layer says nothing about heads in"
                    " general"))
    verdict = PASS if holds else FAIL
    return Outcome(verdict, "tagger head (C = 753, d = 64): 0 of 753 classes unargmaxable;"
                   " every certificate checked", tuple(rows))


def check_very_infrequent():
    """The abstract's statement about its LM/MT models: not checkable here."""
    return Outcome(NOT_CHECKED, "needs the 13 models' weights and their use on text, not"
                   " available offline", (
                       Row("why", "how often the unargmaxable tokens of the 13 models would"
                           " be the right prediction, and what that costs in quality, needs"
                           " those models and text to run them on"),
                       Row("what is checked", "low-rank.trained-layers (run it with --claim):"
                           " the exact count on a trained softmax classifier's head that is no"
                           " LM/MT model: 0 of 753 classes of a tagger head (d = 64); the"
                           " statement is the paper's about its own models"),
                   ))
