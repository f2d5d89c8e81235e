"""Run the examples in the docstrings of every module as tests."""

import doctest
import importlib
import pkgutil

import reviews
import reviews.papers


def _modules():
    for package in (reviews, reviews.papers):
        for info in pkgutil.iter_modules(package.__path__):
            yield importlib.import_module("%s.%s" % (package.__name__, info.name))


def load_tests(loader, tests, ignore):
    for module in _modules():
        tests.addTests(doctest.DocTestSuite(module))
    return tests
