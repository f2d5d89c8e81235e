"""Run the examples in the docstrings of every module as tests."""

import doctest
import importlib
import pkgutil

import reviews


def _modules():
    for info in pkgutil.walk_packages(reviews.__path__, "reviews."):
        yield importlib.import_module(info.name)


def load_tests(loader, tests, ignore):
    for module in _modules():
        tests.addTests(doctest.DocTestSuite(module))
    return tests
