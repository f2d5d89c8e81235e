"""Classes masked by a bias of -inf: never the argmax, and not there for
the others.

A class whose bias is -inf has the logit -inf at every input: it is never
argmaxable, and it never stands in another class's way.  So the other
classes are decided, and their certificates checked, on the layer without
the masked ones, and their class numbers mapped back.  A masked class's
certificate is its bias.

    masked_classes   the classes whose bias is -inf
    iter_unmasked    the results of a layer with masked classes
    verify_unmasked  verify for a layer with masked classes
    radii_unmasked   the largest radii of a layer with masked classes
"""

from decimal import Decimal

from reviews.argmax.layer_input import asked_classes, sequence, validated
from reviews.errors import InputError
from reviews.exact import real_number

__all__ = ["masked_classes", "iter_unmasked", "verify_unmasked", "radii_unmasked"]

_MINUS_INFINITY = float("-inf")


def masked_classes(bias):
    """The classes whose bias is -inf, in order: a float, a Decimal or any
    other real number (a numpy float32) that is -inf, in any sequence (a
    list, a tuple, an array.array, a memoryview, a numpy array).

    A Decimal is tested as a Decimal: -3E+391 is finite, though float()
    of it is -inf.  An iterable that cannot be read twice (a generator)
    masks nothing: it is read once, by the check.

    >>> masked_classes([0, float("-inf"), Decimal("-Infinity"), Decimal("-3E+391")])
    [1, 2]
    """
    if bias is None or not (hasattr(bias, "__len__") and hasattr(bias, "__getitem__")):
        return []
    return [j for j, value in enumerate(sequence(bias, "bias")) if _minus_infinity(value)]


def _minus_infinity(value):
    if type(value) is float:
        return value == _MINUS_INFINITY
    if isinstance(value, Decimal):
        return value.is_infinite() and value < 0
    try:
        return real_number(value, "bias") == _MINUS_INFINITY
    except InputError:
        return False   # not a number: the check names it


def _kept(count, masked):
    masked = set(masked)
    return [j for j in range(count) if j not in masked]


def iter_unmasked(weights, bias, masked, check, make, classes=None):
    """An iterator of one item per class asked of the layer (``classes``,
    as asked_classes takes them; None: every class), in increasing order:
    a masked one is ``make(i, False, classes=C, masked=True)``; the others
    come from ``check(weights, bias, asked)``, an iterator over the layer
    without the masked classes (``asked`` their numbers there, None for
    all), each a namedtuple whose ``result`` field is a ClassResult,
    renumbered.  The layer is validated, and ``check`` called, before this
    returns."""
    # Checked whole first, so that a bad entry is named by its own class.
    validated(weights, [0 if j in masked else b for j, b in enumerate(bias)])
    asked = asked_classes(classes, len(weights))
    kept = _kept(len(weights), masked)
    position = {j: n for n, j in enumerate(kept)}
    wanted = [position[i] for i in asked if i in position]
    decided = check([weights[j] for j in kept], [bias[j] for j in kept],
                    None if classes is None else wanted) if wanted else iter(())
    return _renumbered(asked, position, kept, len(weights), decided, make)


def _renumbered(asked, position, kept, classes, decided, make):
    try:
        for i in asked:
            if i not in position:
                yield make(i, False, classes=classes, masked=True)
                continue
            item = next(decided)
            result = item.result
            terms = None if result.terms is None else tuple((kept[j], v)
                                                            for j, v in result.terms)
            yield item._replace(result=result._replace(
                index=kept[result.index], terms=terms,
                classes=None if result.classes is None else classes))
    finally:
        close = getattr(decided, "close", None)
        if close is not None:
            close()


def verify_unmasked(weights, bias, result, masked, verify):
    """``verify(weights, bias, result)`` for a layer with masked classes: a
    masked class is proved by its bias, the others on the layer without the
    masked classes (whose logits are -inf)."""
    if result.index in masked:
        return result.masked and not result.argmaxable
    kept = _kept(len(weights), masked)
    position = {j: n for n, j in enumerate(kept)}
    if result.masked or result.index not in position or (
            result.terms is not None and any(j not in position for j, _ in result.terms)):
        return False
    terms = None if result.terms is None else tuple((position[j], v) for j, v in result.terms)
    renumbered = result._replace(index=position[result.index], terms=terms,
                                 classes=None if result.classes is None else len(kept))
    return verify([weights[j] for j in kept], [bias[j] for j in kept], renumbered)


def radii_unmasked(weights, bias, results, masked, radii):
    """One radius per result of a layer with masked classes: None for a
    masked class (never argmaxable), the others ``radii(weights, bias,
    results)`` on the layer without the masked classes, renumbered."""
    kept = _kept(len(weights), masked)
    position = {j: n for n, j in enumerate(kept)}
    shown = [result for result in results if result.index in position]
    if not shown:
        return [None] * len(results)
    found = radii([weights[j] for j in kept], [bias[j] for j in kept],
                  [result._replace(index=position[result.index]) for result in shown])
    found = dict(zip((result.index for result in shown), found))
    return [found.get(result.index) for result in results]
