"""Tests of the package's face: the public API, loaded only when used."""

import json
import unittest

import reviews
from tests.support import fresh_python


class TestPublicNames(unittest.TestCase):

    def test_every_public_name_is_its_home_modules_own(self):
        import importlib
        for name in reviews.__all__:
            if name == "__version__":
                continue
            with self.subTest(name=name):
                home = importlib.import_module(reviews._HOMES[name])
                self.assertIs(getattr(reviews, name), getattr(home, name))

    def test_softmax_is_the_function_even_after_its_subpackage_is_imported(self):
        import reviews.softmax.kernels   # noqa: F401  (binds subpackages on their parent)
        from reviews import softmax
        self.assertEqual(softmax([0, 0]), [0.5, 0.5])

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
        self.assertIn("reviews.softmax.functions", loaded)
        for far in ("reviews.argmax", "reviews.formats", "reviews.cli", "reviews.report"):
            self.assertNotIn(far, loaded)


if __name__ == "__main__":
    unittest.main()
