"""Tests of the package's face: the public API, loaded only when used."""

import importlib
import json
import os
import pkgutil
import re
import unittest

import reviews
from tests.support import fresh_python


class TestPublicNames(unittest.TestCase):

    def test_every_public_name_is_its_home_modules_own(self):
        for name in reviews.__all__:
            if name == "__version__":
                continue
            with self.subTest(name=name):
                home = importlib.import_module(reviews._HOMES[name])
                self.assertIs(getattr(reviews, name), getattr(home, name))

    def test_no_subpackage_shares_a_public_name(self):
        # Importing a subpackage binds it on its parent by its name: one
        # named like a public function would hide it.
        folder = os.path.dirname(reviews.__file__)
        subpackages = {name for name in os.listdir(folder)
                       if os.path.isfile(os.path.join(folder, name, "__init__.py"))}
        self.assertEqual(subpackages & set(reviews.__all__), set())
        importlib.import_module("reviews.rounded.kernels")
        from reviews import softmax
        self.assertEqual(softmax([0, 0]), [0.5, 0.5])

    def test_pyproject_lists_every_package_an_install_needs(self):
        root = os.path.dirname(os.path.dirname(reviews.__file__))
        with open(os.path.join(root, "pyproject.toml"), encoding="utf-8") as handle:
            listed = re.search(r"^packages = \[([^]]*)\]", handle.read(), re.M).group(1)
        found = {"reviews"} | {info.name for info in pkgutil.walk_packages(
            reviews.__path__, "reviews.") if info.ispkg}
        self.assertEqual(set(re.findall(r'"([^"]+)"', listed)), found)

    def test_dir_lists_the_public_names(self):
        self.assertLessEqual(set(reviews.__all__), set(dir(reviews)))

    def test_an_unknown_name_is_an_attribute_error(self):
        with self.assertRaises(AttributeError):
            reviews.no_such_name


class TestLazyImport(unittest.TestCase):

    def test_import_reviews_loads_no_other_module_of_the_package(self):
        done = fresh_python("import json, reviews\n"
                            "print(json.dumps(sorted(m for m in sys.modules"
                            " if m.startswith('reviews'))))")
        self.assertEqual(json.loads(done.stdout), ["reviews"], done.stderr)

    def test_a_public_name_loads_only_its_own_layers(self):
        done = fresh_python("import json\nfrom reviews import softmax\n"
                            "print(json.dumps(sorted(m for m in sys.modules"
                            " if m.startswith('reviews'))))")
        loaded = json.loads(done.stdout)
        self.assertIn("reviews.rounded.functions", loaded)
        for far in ("reviews.argmax", "reviews.formats", "reviews.cli", "reviews.report"):
            self.assertNotIn(far, loaded)


if __name__ == "__main__":
    unittest.main()
