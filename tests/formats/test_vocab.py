"""Tests of reviews.formats.vocab: each vocabulary format, the fixtures'
tokens against their files read here with json, and errors."""

import json

from reviews.errors import InputError
from reviews.formats.layers import read_model
from reviews.formats.vocab import find_vocab, read_vocab
from tests.support.models import model
from tests.support import FileTestCase


class TestFormats(FileTestCase):

    def test_tokenizer_json_bpe_with_added_tokens_overriding(self):
        path = self.write("tokenizer.json", json.dumps({
            "model": {"type": "BPE", "vocab": {"a": 0, "\u0120the": 1, "x": 2}},
            "added_tokens": [{"id": 2, "content": "<|endoftext|>"},
                             {"id": 3, "content": "<pad>"}]}))
        self.assertEqual(read_vocab(path), {0: "a", 1: "\u0120the", 2: "<|endoftext|>", 3: "<pad>"})

    def test_tokenizer_json_unigram_is_a_list_of_token_and_score(self):
        path = self.write("tokenizer.json", json.dumps({
            "model": {"type": "Unigram", "vocab": [["<unk>", 0], ["\u2581the", -1.5]]}}))
        self.assertEqual(read_vocab(path), {0: "<unk>", 1: "\u2581the"})

    def test_vocab_json_and_a_json_list(self):
        self.assertEqual(read_vocab(self.write("vocab.json", '{"b": 1, "a": 0}')),
                         {1: "b", 0: "a"})
        self.assertEqual(read_vocab(self.write("tokens.json", '["a", "b"]')), {0: "a", 1: "b"})

    def test_lines_end_at_newline_only(self):
        # A token may hold a carriage return, U+2028 or U+0085: splitlines
        # would cut it in two and shift every later id.
        path = self.write("vocab.txt", "a\rb\n\u2028\n\x85c\n\n")
        self.assertEqual(read_vocab(path), {0: "a\rb", 1: "\u2028", 2: "\x85c", 3: ""})

    def test_sentencepiece_vocab_is_token_tab_score(self):
        path = self.write("m.vocab", "<unk>\t0\n\u2581a\tb\t-2\n")
        self.assertEqual(read_vocab(path), {0: "<unk>", 1: "\u2581a\tb"})
        with self.assertRaisesRegex(InputError, "m.vocab: line 1 has no tab"):
            read_vocab(self.write("m.vocab", "<unk>\n"))

    def test_bad_ids_are_named(self):
        for text, message in (('{"a": -1}', r"\['a'\] is -1; expected a token id"),
                              ('{"a": 1.5}', r"\['a'\] is 1.5"),
                              ('{"a": "1"}', r"\['a'\] is '1'"),
                              ('{"a": true}', r"\['a'\] is true")):
            with self.subTest(text=text):
                with self.assertRaisesRegex(InputError, message):
                    read_vocab(self.write("vocab.json", text))

    def test_a_repeated_id_is_named_with_its_tokens_not_dropped(self):
        # Keeping "a" and dropping "b" left class 0 named by a guess, and the
        # missing token was then blamed on padding.
        path = self.write("vocab.json", '{"a": 0, "b": 0, "c": 2}')
        with self.assertRaisesRegex(InputError, "vocab.json gives id 0 to two tokens, 'a' and 'b'"):
            read_vocab(path)

    def test_a_huge_id_is_refused_by_its_range(self):
        path = self.write("vocab.json", '{"a": 1e999999}')
        with self.assertRaisesRegex(InputError, "is '1e999999', past the size limit.*; expected"
                                                " a token id"):
            read_vocab(path)


class TestFixtures(FileTestCase):

    def test_each_folder_finds_its_own_vocabulary(self):
        self.assertEqual(find_vocab(model("gpt2-tied")), model("gpt2-tied", "tokenizer.json"))
        self.assertEqual(find_vocab(model("marian-bias")), model("marian-bias", "vocab.json"))
        self.assertEqual(find_vocab(model("bert-mlm")), model("bert-mlm", "vocab.txt"))

    def test_the_tokens_are_the_files_own(self):
        with open(model("gpt2-tied", "tokenizer.json"), encoding="utf-8") as handle:
            vocab = json.load(handle)["model"]["vocab"]
        layer = read_model(model("gpt2-tied"))
        self.assertEqual(layer.tokens, {n: token for token, n in vocab.items()})
        self.assertEqual(layer.files[-1], model("gpt2-tied", "tokenizer.json"))
        with open(model("bert-mlm", "vocab.txt"), encoding="utf-8") as handle:
            lines = handle.read().split("\n")[:-1]
        self.assertEqual(read_model(model("bert-mlm")).tokens, dict(enumerate(lines)))

    def test_a_vocabulary_of_another_size_gets_notes(self):
        notes = []
        path = self.write("vocab.txt", "a\nb\nc\n")
        layer = read_model(model("gpt2-tied"), vocab=path, note=notes.append)
        self.assertEqual(layer.tokens, {0: "a", 1: "b", 2: "c"})
        self.assertIn("%s: 297 of the 300 classes have no token in it (tokens the tokenizer"
                      " adds past it, such as M2M100's language codes or XGLM's made-up"
                      " words, or a head padded past the vocabulary)" % path, notes)
        notes = []
        big = self.write("big.json", json.dumps(["t%d" % n for n in range(302)]))
        self.assertEqual(len(read_model(model("gpt2-tied"), vocab=big,
                                        note=notes.append).tokens), 300)
        self.assertIn("%s: 2 tokens with ids past the 300 classes (the largest 301) not shown:"
                      " is it this model's vocabulary?" % big, notes)


class TestStandardInput(FileTestCase):

    def test_a_vocabulary_from_standard_input_is_refused_not_read_as_a_file_named_dash(self):
        layer = self.write("l.csv", "1,0\n0,1\n")
        with self.assertRaises(InputError) as caught:
            read_model(layer, vocab="-")
        self.assertEqual(str(caught.exception), "<stdin>: the tokens are not read from standard"
                                                " input (vocab=\"-\" or --vocab -): a"
                                                " vocabulary's format is told by its file's name;"
                                                " name the file")
