"""Shards of one layer's check joined into one run's results: ``merge``.

Each shard is the JSON report of ``check-layer FILE --classes A:B
--format json``; reviews.run.shards reads them back and checks that they
fit together and that none contradicts itself.  Where the layer is at
hand (at the path the shards name, or one given), its files must be the
ones the shards were made from (size and SHA-256), and every certificate
listed is checked exactly against it, as a resumed run checks its
checkpoint, with each radius found again.

    merge_shards    the shards read, joined and checked; a note where the
                    layer was not at hand
    shard_text      a shard's text: a regular file read whole, as UTF-8
"""

import os

from reviews import SUITE_NAME, __version__
from reviews.argmax.verify import Verifier
from reviews.argmax.tolerance import radii
from reviews.errors import InputError
from reviews.formats.layers import read_model
from reviews.formats.source import file_digest, open_regular
from reviews.run.plan import reports_radii
from reviews.run.shards import join, read_shard
from reviews.shown import shown_name

__all__ = ["merge_shards", "shard_text"]


def merge_shards(paths, layer_path=None, bias_path=None):
    """(the LayerReport of the shards at ``paths`` joined, the Shards, a note or None): the
    certificates and radii checked against the layer at ``layer_path``
    (with its bias at ``bias_path``), or at the path the shards name; where
    it is not at hand, the note says so, and so does the joined report's
    version line.  InputError for shards that do not fit, contradict
    themselves or the layer.
    """
    shards = [read_shard(path, shard_text(path)) for path in paths]
    first = shards[0].report
    # As the whole layer's run (run_layer).
    joined = join(shards, "%s %s" % (SUITE_NAME, __version__),
                  radii=reports_radii(first.class_count, first.class_count, first.dim,
                                      first.question))
    layer = _layer_at_hand(joined, layer_path, bias_path)
    if layer is not None:
        _check_against(joined, layer, shards)
        return joined, shards, None
    note = ("the certificates were not checked against the layer: it is not at %s (give"
            " --layer FILE)" % shown_name(joined.name))
    joined = joined._replace(provenance=joined.provenance._replace(
        version=joined.provenance.version + "; " + note))
    return joined, shards, note


def _layer_at_hand(joined, layer_path, bias_path):
    """The layer the shards name (read as check-layer read it), or None
    where it is not at hand; InputError where its files differ."""
    path = layer_path or joined.name
    if layer_path is None and (joined.name == "-" or not os.path.exists(path)):
        return None
    provenance = joined.provenance
    bias = bias_path
    if (bias is None and joined.bias and provenance.bias_tensor is None
            and not os.path.isdir(path) and len(provenance.files) > 1):
        bias = provenance.files[1][0] if layer_path is None else None
    # A norm read from tensors is read again from them (a name "1 + NAME" too).
    norm = joined.question.inputs if joined.question.normed else None
    named = norm is not None and any(norm.names)
    layer = read_model(path, bias,
                       tensor=provenance.weights_tensor and provenance.weights_tensor.name,
                       bias_tensor=provenance.bias_tensor and provenance.bias_tensor.name,
                       transpose=provenance.transpose,
                       # Shards of W x alone (--no-bias) read none of the file's bias.
                       no_bias=not joined.bias and bias is None, binary=True,
                       norm=(norm.kind,) + norm.names if named else None)
    if named and (layer.norm.weight, layer.norm.bias) != (norm.weight, norm.bias):
        raise InputError("%s: its norm's %s are not the ones the shards name"
                         % (shown_name(path), " and ".join(n for n in norm.names if n)))
    made_from = {(size, digest) for _, size, digest in provenance.files}
    for name in layer.files:
        if file_digest(name) not in made_from:
            raise InputError("%s is not a file the shards were made from (its size and SHA-256"
                             " are none of theirs)" % shown_name(name))
    if len(layer.weights) != joined.class_count or len(layer.weights[0]) != joined.dim \
            or (layer.bias is not None) != joined.bias:
        raise InputError("%s is not the layer of the shards: %d x %d%s, not %d x %d%s" % (
            shown_name(path), len(layer.weights), len(layer.weights[0]),
            " with a bias" if layer.bias is not None else "", joined.class_count, joined.dim,
            " with a bias" if joined.bias else ""))
    return layer


def _check_against(joined, layer, shards):
    """InputError naming the shard and class of a certificate that does not
    hold on the layer, or of a radius that is not the one found again."""
    listed = [r for r in joined.results if r.argmaxable is False or r.witness is not None]
    holds = Verifier(layer.weights, layer.bias, joined.question).holds_all(listed)
    if not all(holds):
        index = listed[holds.index(False)].index
        raise InputError("%s: class %d's certificate does not hold on the layer"
                         % (shown_name(_holding(shards, index)), index))
    if joined.radii is not None:
        found = radii(layer.weights, layer.bias, joined.results)
        for result, given, again in zip(joined.results, joined.radii, found):
            if given != again:
                raise InputError("%s: class %d's radius is not the one found again on the"
                                 " layer" % (shown_name(_holding(shards, result.index)),
                                             result.index))


def _holding(shards, index):
    """The path of the shard that holds class ``index``."""
    return next(path for path, shard in shards if any(r.index == index for r in shard.results))


def shard_text(path):
    """A shard's text: a regular file read whole, as UTF-8."""
    handle, size = open_regular(path)
    with handle:
        data = handle.read(size)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise InputError("%s: not a check-layer JSON report: not UTF-8 (byte %d)"
                         % (shown_name(path), error.start)) from None
