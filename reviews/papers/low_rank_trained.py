"""The low-rank paper's "very infrequent", against trained models' output layers.

The abstract says that in the 13 of 150 public LM/MT models with
unargmaxable tokens, "they are very infrequent and unlikely to impact model
quality".  Those models are not here (low-rank.13-of-150), so that is NOT
CHECKED.  What this module checks exactly is the output layers of two
trained softmax classifiers shipped in PyPI packages (reviews/data,
PROVENANCE.md says from where and under which licence): a morphology
tagger's head, and the head of a Mandarin grapheme-to-phoneme model both
over R^d and over the inputs its ReLU gives it (x >= 0), every class
decided by check_layer and every certificate checked again by verify_all.
That takes seconds, many times the rest of a run: its claim runs only when
selected.  The checks are used by reviews.papers.low_rank_softmax, whose
CLAIMS hold them.

    check_trained_layers    the exact counts on the shipped layers
    check_very_infrequent   the abstract's statement: NOT CHECKED, and why
    TRAINED_LAYERS          the shipped layers: file, package, what it is, what feeds it
"""

import hashlib
import os
from collections import namedtuple

from reviews.argmax.certified import verify_all
from reviews.argmax.check import check_layer
from reviews.argmax.domain import shown_inputs
from reviews.argmax.question import inputs_value
from reviews.claims import FAIL, NOT_CHECKED, PASS, Outcome, Row

__all__ = ["check_trained_layers", "check_very_infrequent", "TRAINED_LAYERS"]

TrainedLayer = namedtuple("TrainedLayer",
                          "name package what sha256 fed questions kind classes dimension")
TrainedLayer.__doc__ = """A shipped layer: its file's name in reviews/data, the
package it comes from, what it is, the file's sha256, what feeds the head
(the inputs it can get), the questions asked of it: pairs (inputs, the
number of classes unargmaxable there), inputs None for R^d; and, for the
claims that cite it without running it, what head it is in a few words,
its number of classes and its dimension (check_trained_layers checks
these, and every count, against the file)."""

TRAINED_LAYERS = (
    TrainedLayer("natasha_slovnet_morph_news_v1_head", "natasha 1.6.0 (MIT)",
                 "slovnet Russian morphology tagger's head, 753 tag bundles",
                 "30186f5d89cf25e0f74045da1f74d4d04214bf5ba569f77b125eba8de508e21d",
                 "a BatchNorm1d after a ReLU: each coordinate on a half-line of its own,"
                 " whose end the norm's parameters set (they are not shipped here), which no"
                 " one interval for every coordinate states; asked over R^64",
                 ((None, 0),), "a tagger head", 753, 64),
    TrainedLayer("g2pM_logit_layer_2_head", "g2pM 0.1.2.5 (Apache-2.0)",
                 "Mandarin grapheme-to-phoneme model's head, 876 readings (pinyin with tone)",
                 "cefce8b990a09f12f323380e1d3e19f7ebadaf19959479a31d4f5bb376b2f3c6",
                 "a ReLU after logit_layer.0 (Linear 64 -> 32) on a bidirectional LSTM's"
                 " outputs: every input has x >= 0 (a bounded part of it: the LSTM's outputs"
                 " lie in (-1, 1)^64), and predict takes np.argmax over all 876 classes, so a"
                 " class unargmaxable over x >= 0 is never predicted, whatever the sentence,"
                 " except where its logit ties the largest exactly (in exact arithmetic on the"
                 " stored weights) and np.argmax takes it as the lowest index of the tied",
                 ((None, 225), ((0, None), 229)), "a grapheme-to-phoneme head", 876, 32),
)
# Unargmaxable classes a row names by id and token, the first of each question's.
_NAMED = 8
_DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data")


def _path(layer, suffix):
    return os.path.join(_DATA, layer.name + suffix)


def _digest(path):
    with open(path, "rb") as handle:
        return hashlib.sha256(handle.read()).hexdigest()


def _asked(inputs, dimension):
    """Where a question asks, as a row's label says it: "over R^32", "over x >= 0"."""
    return "over R^%d" % dimension if inputs is None else "over " + shown_inputs(
        inputs_value(inputs))


def _decided(weights, bias, inputs, earlier, dimension):
    """(results on ``inputs``, how they were found, for the row): every
    class decided, or, after the results over R^d (``earlier``), only the
    classes argmaxable there: a combination that proves a class loses
    everywhere proves it loses on any domain (verify_all checks it there)."""
    if earlier is None:
        return check_layer(weights, bias, jobs=None, inputs=inputs), ""
    kept = [r for r in earlier if not r.argmaxable]
    asked = [r.index for r in earlier if r.argmaxable]
    fresh = check_layer(weights, bias, jobs=None, inputs=inputs, classes=asked)
    return sorted(kept + fresh, key=lambda r: r.index), (
        "; the %d classes argmaxable over R^%d decided again here, the %d others by their"
        " certificates over R^%d, which hold on every domain" % (len(asked), dimension,
                                                                 len(kept), dimension))


def check_trained_layers():
    """Every class of each shipped layer decided on each question's inputs,
    every certificate checked."""
    # Imported here: a run that does not select this claim need not load the readers.
    from reviews.formats.layers import read_layer
    from reviews.formats.vocab import read_vocab
    rows, holds, found = [], True, []
    for layer in TRAINED_LAYERS:
        path = _path(layer, ".npz")
        weights, bias = read_layer(path)
        tokens = read_vocab(_path(layer, ".tokens.txt"))
        classes, dimension = len(weights), len(weights[0])
        holds = (holds and _digest(path) == layer.sha256 and len(tokens) == classes
                 and (classes, dimension) == (layer.classes, layer.dimension))
        rows += [
            Row(layer.name, "%s; %s: C = %d, d = %d, %s" % (
                layer.package, layer.what, classes, dimension,
                "with bias" if bias is not None else "no bias")),
            Row("  fed by", layer.fed),
        ]
        earlier, results = set(), None
        for inputs, expected in layer.questions:
            results, how = _decided(weights, bias, inputs, results, dimension)
            checked = verify_all(weights, bias, results, inputs=inputs)
            failing = [r.index for r in results if not r.argmaxable]
            holds = holds and all(checked) and len(failing) == expected
            found.append(len(failing))
            rows.append(Row("  " + _asked(inputs, dimension),
                            "%d of %d classes unargmaxable, %d argmaxable; %d of %d certificates"
                            " checked again (verify_all)%s" % (len(failing), classes,
                                                              classes - len(failing),
                                                              sum(checked), len(checked), how)))
            # A smaller domain leaves every class unargmaxable that R^d does:
            # its row names those it adds.
            named = [i for i in failing if i not in earlier]
            if named:
                label = "the first %d" % min(_NAMED, len(named)) if not earlier else (
                    "%d more than %s" % (len(named), _asked(None, dimension)))
                rows.append(Row("    " + label, ", ".join(
                    "%d %s" % (i, tokens[i]) for i in named[:_NAMED])))
            earlier = set(failing)
        rows.append(Row("  file", "reviews/data/%s.npz, sha256 %s (reviews/data/PROVENANCE.md)"
                        % (layer.name, layer.sha256)))
    rows += [
        Row("what it shows", "trained softmax classifiers can have classes that no input makes"
            " the argmax: %d of g2pM's %d readings over R^32, %d over the inputs its ReLU"
            " gives it, which it can therefore never predict but at an exact tie where"
            " np.argmax takes the lowest index; the tagger has none" % (found[1], classes,
                                                                        found[2])),
        Row("what it does not", "both are classifiers of small d (32, 64) with a few hundred"
            " classes, not the paper's LM/MT models of large vocabularies: how often a"
            " reading is needed, and what losing it costs, is not measured here"),
        Row("whose", "the counts are this suite's own, decided here; the paper's \"very"
            " infrequent\" is about its LM/MT models (low-rank.very-infrequent, NOT"
            " CHECKED), which these layers are not: two layers say nothing about heads in"
            " general"),
    ]
    verdict = PASS if holds else FAIL
    return Outcome(verdict, "tagger head (C = 753, d = 64): %d unargmaxable; g2pM head"
                   " (C = 876, d = 32): %d over R^32, %d over x >= 0; every certificate"
                   " checked" % tuple(found), tuple(rows))


def _counts(layer):
    """ "225 of 876 classes of a grapheme-to-phoneme head (d = 32; 229 over
    x >= 0)": a shipped layer's pinned counts, over R^d first."""
    (_, everywhere), *others = layer.questions
    return "%d of %d classes of %s (d = %d%s)" % (
        everywhere, layer.classes, layer.kind, layer.dimension,
        "".join("; %d %s" % (count, _asked(inputs, layer.dimension))
                for inputs, count in others))


def check_very_infrequent():
    """The abstract's statement about its LM/MT models: not checkable here."""
    return Outcome(NOT_CHECKED, "needs the 13 models' weights and their use on text, not"
                   " available offline", (
                       Row("why", "how often the unargmaxable tokens of the 13 models would"
                           " be the right prediction, and what that costs in quality, needs"
                           " those models and text to run them on"),
                       Row("what is checked", "low-rank.trained-layers (run it with --claim):"
                           " the exact counts on two trained softmax classifiers' heads that"
                           " are no LM/MT model, as that claim pins them and checks them when"
                           " it runs: %s; the statement is the paper's about its own models"
                           % ", ".join(_counts(layer) for layer in TRAINED_LAYERS)),
                   ))
