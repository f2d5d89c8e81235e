"""Tests of reviews.formats.sentencepiece: a SentencePiece model's pieces,
against the ids the sentencepiece package itself gave (tests/data/sentencepiece)."""

import os
import shutil

from reviews.errors import InputError
from reviews.formats.sentencepiece import sentencepiece_pieces, sentencepiece_tokens
from reviews.formats.vocab import find_vocab, read_vocab
from tests.support import ROOT, FileTestCase

MODEL = os.path.join(ROOT, "tests", "data", "sentencepiece", "spiece.model")
PIECES = ["<unk>", "<s>", "</s>", "at", "he", "\u2581t", "\u2581the", "\u2581a", "do", "on",
          "\u2581c", "dog", "\u2581cat", "\u2581dog", "nd", "\u2581b", "\u2581m", "\u2581", "t",
          "a", "e", "h", "o", "d", "n", "c", "g", "b", "m", "s"]


def piece(text):
    """A ModelProto field 1 holding a SentencePiece of ``text`` (bytes)."""
    inner = b"\x0a" + bytes([len(text)]) + text + b"\x15\x00\x00\x80\xbf"   # piece, score
    return b"\x0a" + bytes([len(inner)]) + inner


class TestSentencePiece(FileTestCase):

    def test_the_pieces_are_those_the_sentencepiece_package_numbers(self):
        self.assertEqual(sentencepiece_tokens(MODEL), dict(enumerate(PIECES)))
        self.assertEqual(read_vocab(MODEL), dict(enumerate(PIECES)))

    def test_a_fairseq_model_is_numbered_as_its_tokenizer_numbers_it(self):
        path = os.path.join(self.folder.name, "sentencepiece.bpe.model")
        shutil.copy(MODEL, path)
        tokens = sentencepiece_tokens(path)
        self.assertEqual([tokens[k] for k in range(6)], ["<s>", "<pad>", "</s>", "<unk>", "at",
                                                         "he"])
        self.assertEqual((len(tokens), tokens[30]), (31, "s"))

    def test_a_folder_with_only_a_sentencepiece_model_names_its_classes(self):
        shutil.copy(MODEL, os.path.join(self.folder.name, "spiece.model"))
        self.assertEqual(find_vocab(self.folder.name),
                         os.path.join(self.folder.name, "spiece.model"))

    def test_other_fields_and_wire_types_are_skipped(self):
        data = b"\x10\x05" + piece(b"a") + b"\x19" + b"\x00" * 8 + piece(b"b")
        self.assertEqual(sentencepiece_pieces(data, "m.model"), ["a", "b"])

    def test_hostile_files_are_one_error_each(self):
        for data, message in (
                (piece(b"ab")[:-3], "runs past the end of its message"),
                (b"\x0a\xff\xff\xff\xff\x0f", "runs past the end of its message"),
                (b"\x0a" + b"\xff" * 11, "a number of more than 10 bytes"),
                (b"\x0a", "a number runs past the end of the file"),
                (b"\x0b", "wire type 3 is not one"),
                (b"\x0a\x02\x15\x00", "runs past the end of its message"),
                (b"\x0a\x00", "piece 0 has no text"),
                (piece(b"\xff"), "piece 0 is not UTF-8"),
                (b"", "no pieces: not a SentencePiece model")):
            with self.subTest(data=data):
                with self.assertRaisesRegex(InputError, message):
                    sentencepiece_pieces(data, "m.model")
        path = self.write("bad.model", b"\x0a\x05ab")
        with self.assertRaisesRegex(InputError, "bad.model: byte .*: field 1 runs past"):
            read_vocab(path)
