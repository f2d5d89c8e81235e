"""The reviewed papers: one module each, and the registry that finds them.

Each module here holds one paper's claims as data (reviews.claims.Claim) in
a tuple ``CLAIMS``; adding a paper means adding one module and its tests,
nothing else.

    low_rank_softmax        Grivas, Bogoychev & Lopez (2022), arXiv:2203.06462
    memorization_problem    Lopez-Lira, Tang & Zhu (2025), arXiv:2504.14765

and the checks that a paper's module uses, kept apart (no CLAIMS of their own):

    low_rank_released       the low-rank paper's released detector, as its source works
    low_rank_trained        the low-rank paper's "very infrequent", on trained layers

    all_claims      every registered claim, modules in name order
"""

import importlib
import os

__all__ = ["all_claims"]


def all_claims():
    """Every registered claim, paper modules in name order, claims in order."""
    # The folder's .py files, as pkgutil.iter_modules would find them, which
    # would import inspect (and ast, dis, tokenize) for this alone.
    names = {name[:-3] for folder in __path__ for name in os.listdir(folder)
             if name.endswith(".py") and name[:-3].isidentifier() and name != "__init__.py"}
    found = []
    for name in sorted(names):
        module = importlib.import_module("reviews.papers." + name)
        found.extend(getattr(module, "CLAIMS", ()))
    return found
