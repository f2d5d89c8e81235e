"""Tests of reviews.argmax.kernels.witness: a witness in integers reads as its tuple of Fractions."""

import pickle
import unittest
from fractions import Fraction as F
from unittest import mock

from reviews.argmax.kernels import witness as witness_module
from reviews.argmax.check import check_layer
from reviews.argmax.certified import verify_all
from reviews.argmax.verify import verify
from reviews.argmax.kernels.witness import Witness
from reviews.errors import InputError


class TestWitness(unittest.TestCase):

    def test_it_reads_as_the_tuple_of_its_fractions(self):
        x = Witness((-6, 3, 0, 8), 4)
        expected = (F(-3, 2), F(3, 4), F(0), F(2))
        self.assertEqual(tuple(x), expected)
        self.assertEqual(list(x), list(expected))
        self.assertEqual([x[k] for k in range(4)], list(expected))
        self.assertEqual(x[-1], F(2))
        self.assertEqual(x[1:3], expected[1:3])
        self.assertEqual(len(x), 4)
        self.assertEqual({type(v) for v in x}, {F})

    def test_equality_hash_and_repr_are_those_of_the_tuple(self):
        x = Witness((-6, 3, 0), 4)
        expected = (F(-3, 2), F(3, 4), F(0))
        self.assertTrue(x == expected and expected == x)
        self.assertFalse(x != expected)
        self.assertEqual(hash(x), hash(expected))
        self.assertEqual(repr(x), repr(expected))
        self.assertEqual({x, expected}, {expected})

    def test_witnesses_over_different_denominators_compare_by_value(self):
        self.assertEqual(Witness((1, -2), 3), Witness((2, -4), 6))
        self.assertEqual(hash(Witness((1, -2), 3)), hash(Witness((2, -4), 6)))
        self.assertNotEqual(Witness((1, -2), 3), Witness((1, -2), 6))
        self.assertNotEqual(Witness((1, 2), 3), Witness((1, 2, 0), 3))

    def test_it_equals_no_list_as_a_tuple_equals_none(self):
        self.assertNotEqual(Witness((1, 2), 1), [F(1), F(2)])
        self.assertNotEqual(Witness((1,), 1), 1)

    def test_of_takes_ints_and_fractions_over_their_least_common_denominator(self):
        x = Witness.of([F(1, 4), F(5, 6), 2])
        self.assertEqual((x.numerators, x.denominator), ((3, 10, 24), 12))
        self.assertIs(Witness.of(x), x)

    def test_size_is_the_largest_absolute_coordinate(self):
        self.assertEqual(Witness((-6, 3, 0), 4).size(), F(3, 2))
        self.assertEqual(Witness((), 1).size(), 0)

    def test_scaled_multiplies_every_coordinate_exactly(self):
        x = Witness((-6, 3, 0), 4).scaled(F(2, 3))
        self.assertEqual(tuple(x), (F(-1), F(1, 2), F(0)))

    def test_ordering_concatenation_and_repetition_are_the_tuples(self):
        x = Witness((1, 2), 3)
        t = (F(1, 3), F(2, 3))
        self.assertEqual([x < (F(1, 2),), x > (F(0),), x <= t, x >= t, x < t], [True, True, True, True, False])
        self.assertEqual(sorted([x, (F(0),)]), [(F(0),), t])
        self.assertEqual(x + (5,), t + (5,))
        self.assertEqual((5,) + x, (5,) + t)
        self.assertEqual((x * 2, 2 * x), (t * 2, t * 2))
        with self.assertRaises(TypeError):
            x < [1]

    def test_a_denominator_that_is_not_a_positive_int_is_refused(self):
        for denominator in (0, -2, 1.0, True, F(1)):
            with self.subTest(denominator=denominator):
                with self.assertRaisesRegex(InputError, "denominator must be a positive int"):
                    Witness((1,), denominator)
        with self.assertRaisesRegex(InputError, "numerators must be ints"):
            Witness((1, 0.5), 2)

    def test_numerators_of_any_type_are_told_apart_without_hashing_their_type(self):
        # A metaclass with __eq__ and no __hash__ makes its classes unhashable.
        class Unhashable(type):
            def __eq__(cls, other):
                return cls is other

        class Odd(int, metaclass=Unhashable):
            pass

        class Other(metaclass=Unhashable):
            pass

        self.assertEqual(Witness((Odd(4), True + 0), 2).numerators, (4, 1))
        with self.assertRaisesRegex(InputError, "numerators must be ints"):
            Witness((1, Other()), 2)
        with self.assertRaisesRegex(InputError, "numerators must be ints"):
            Witness((1, False), 2)

    def test_it_survives_pickling_as_integers(self):
        x = Witness((-6, 3, 0), 4)
        copy = pickle.loads(pickle.dumps(x))
        self.assertEqual((copy.numerators, copy.denominator), ((-6, 3, 0), 4))
        self.assertEqual(copy, x)


class TestCheckLayerWitnesses(unittest.TestCase):

    def test_a_check_makes_no_fraction_of_a_witness_until_it_is_read(self):
        # A Fraction per coordinate took a fifth of a check of a 8000 x 256
        # layer; the check now keeps x = w_i as integers.
        weights = [[j, (j * j) % 7 - 3, 5 - j] for j in range(12)]
        with mock.patch.object(witness_module, "Fraction", side_effect=AssertionError):
            results = check_layer(weights)
        witnesses = [r.witness for r in results if r.argmaxable]
        self.assertTrue(witnesses)
        self.assertEqual({type(w) for w in witnesses}, {Witness})
        self.assertTrue(all(verify_all(weights, None, results)))

    def test_a_witness_reads_as_the_point_that_makes_its_class_the_maximum(self):
        weights, bias = [[0, 0], [1, 0], [0, 1], [3, 3]], [0, 1, 2, -20]
        for result in check_layer(weights, bias):
            with self.subTest(index=result.index):
                self.assertIs(verify(weights, bias, result), True)
                if result.argmaxable:
                    x = result.witness
                    logits = [sum(map(lambda a, b: a * b, w, x)) + b for w, b in zip(weights, bias)]
                    self.assertEqual(max(logits), logits[result.index])
                    self.assertEqual(logits.count(max(logits)), 1)


if __name__ == "__main__":
    unittest.main()
