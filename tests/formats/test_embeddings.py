"""Tests of reviews.formats.embeddings: GloVe and word2vec text read as
layers whose first column names the classes."""

from decimal import Decimal

from reviews.errors import InputError
from reviews.formats.layers import read_model
from tests.support import FileTestCase


class TestWordVectors(FileTestCase):

    def test_glove_text_gives_rows_and_tokens(self):
        path = self.write("glove.txt", "the 0.1 -2\n, 3 4e-1\n\u00e4 b 0 0\n")
        notes = []
        layer = read_model(path, note=notes.append)
        self.assertEqual(layer.weights, [[Decimal("0.1"), -2], [3, Decimal("0.4")], [0, 0]])
        self.assertEqual(layer.tokens, {0: "the", 1: ",", 2: "\u00e4 b"})
        self.assertEqual(notes, ["%s: read as word vectors: each line's first field is its"
                                 " class's token" % path])

    def test_word2vec_text_has_a_first_line_of_counts(self):
        path = self.write("w.vec", "2 3\nthe 1 2 3\n1e 4 5 6\n")
        layer = read_model(path)
        self.assertEqual((layer.weights, layer.tokens),
                         ([[1, 2, 3], [4, 5, 6]], {0: "the", 1: "1e"}))
        with self.assertRaisesRegex(InputError, "the first line says 3 vectors; the file has 2"):
            read_model(self.write("w.vec", "3 3\nthe 1 2 3\nx 4 5 6\n"))

    def test_a_short_line_or_a_bad_number_is_named(self):
        for text, message in (("the 1 2\nx 3\n", "line 2 has 2 fields; a line is a token and 2"
                                                 " numbers"),
                              ("the 1 2\nx 3 nan\n", "line 2, field 3: 'nan' is not a finite")):
            with self.subTest(text=text):
                with self.assertRaisesRegex(InputError, message):
                    read_model(self.write("g.txt", text))

    def test_a_line_with_a_number_too_many_is_not_a_token_with_a_space(self):
        path = self.write("g.txt", "the 0.1 0.2\nand 0.3 0.3 7\n")
        with self.assertRaises(InputError) as caught:
            read_model(path)
        self.assertEqual(str(caught.exception), "%s: line 2 has 3 numbers after its token 'and';"
                                                " a line is a token and 2 numbers" % path)
        with self.assertRaisesRegex(InputError, "line 2 has 4 numbers and no token; a line"):
            read_model(self.write("g.txt", "the 0.1 0.2\n1 0.3 0.3 7\n"))
        path = self.write("g.txt", "the 0.1 0.2\nnew york 0.3 0.3\n")
        self.assertEqual(read_model(path).tokens, {0: "the", 1: "new york"})

    def test_numbers_only_are_still_a_plain_layer(self):
        layer = read_model(self.write("l.txt", "2 1\n0.5 1\n"))
        self.assertEqual((layer.weights, layer.tokens), ([[2, 1], [Decimal("0.5"), 1]], None))
        layer = read_model(self.write("l.txt", "1; 2\n3;-4\n"))
        self.assertEqual((layer.weights, layer.tokens), ([[1, 2], [3, -4]], None))
        self.assertEqual(read_model(self.write("g.txt", "; 1 2\n")).tokens, {0: ";"})

    def test_word_vectors_are_not_transposed(self):
        with self.assertRaisesRegex(InputError, "cannot be read transposed"):
            read_model(self.write("g.txt", "the 1 2\n"), transpose=True)

    def test_a_count_of_thousands_of_digits_is_refused_before_int(self):
        # int() of more than 4,300 digits raises a bare ValueError on 3.11+.
        path = self.write("w.vec", "2 " + "1" * 5000 + "\nthe 1\na 0\n")
        with self.assertRaisesRegex(InputError, r"line 1: the count '1+'\.\.\. has more than"
                                                r" 18 digits"):
            read_model(path)
        layer = read_model(self.write("w.vec", "0002 001\nthe 1\na 0\n"))
        self.assertEqual(layer.weights, [[1], [0]])
