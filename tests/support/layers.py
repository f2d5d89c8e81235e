"""Layers the checker's tests share: Figure 1 of the low-rank paper, exact."""

from fractions import Fraction as F

from reviews.argmax.check import check_layer

FIGURE_1 = [[-2, -2], [1, 2], [F(9, 5), F(-4, 5)], [F(9, 10), F(1, 5)]]


def decisions(weights, bias=None):
    """Whether each class of the layer is argmaxable, in order."""
    return [r.argmaxable for r in check_layer(weights, bias)]
