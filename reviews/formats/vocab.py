"""A model's tokens: which string each class of its output layer stands for.

Formats, chosen by the file's name:

    tokenizer.json   the tokenizers library's file: ``model.vocab`` as
                     {token: id} (BPE, WordPiece, WordLevel) or as
                     [[token, score], ...] (Unigram: id = position), then
                     ``added_tokens`` ({"id", "content"}), which override
    *.json           {token: id} (vocab.json), or a list of tokens
    *.vocab          sentencepiece's text: ``token<TAB>score``, line n is id n
    *.model          a SentencePiece model (reviews.formats.sentencepiece)
    other text       one token per line (BERT's vocab.txt): line n is id n

Lines end at "\\n" only: a token may hold any other character, "\\r" and
U+2028 included.  In a folder, the first of VOCAB_FILES is read:
tokenizer.json, vocab.json, vocab.txt, FSMT's target vocab-tgt.json, then a
SentencePiece model (spiece.model, tokenizer.model, sentencepiece.bpe.model).

    read_vocab     {id: token} of a vocabulary file
    find_vocab     the vocabulary file of a model folder, or None
    class_tokens   the tokens of a layer's classes, with a note for those
                   that have none and for tokens past them
    VOCAB_FILES    the names find_vocab looks for, in order
"""

import decimal
import os

from reviews.errors import InputError
from reviews.formats.sentencepiece import sentencepiece_tokens
from reviews.formats.source import read_text
from reviews.shown import excerpt
from reviews.formats.json_text import describe_json, parse_json

__all__ = ["read_vocab", "find_vocab", "class_tokens", "VOCAB_FILES"]

VOCAB_FILES = ("tokenizer.json", "vocab.json", "vocab.txt", "vocab-tgt.json", "spiece.model",
               "tokenizer.model", "sentencepiece.bpe.model")
# Ids past this are not a real vocabulary's (the largest have some 2**18).
_MAX_ID = 2 ** 26


def find_vocab(folder):
    """The path of the first of tokenizer.json, vocab.json and vocab.txt in
    ``folder``, or None."""
    for name in VOCAB_FILES:
        path = os.path.join(folder, name)
        if os.path.isfile(path):
            return path
    return None


def class_tokens(tokens, classes, where, note):
    """The {id: token} of ``tokens`` that name one of ``classes`` classes;
    ``note`` is told, naming ``where``, if some id is past them (another
    model's vocabulary?) or if some class has no token (a padded head).

    >>> class_tokens({0: "a", 1: "b", 5: "z"}, 3, "v.txt", print)
    v.txt: 1 token with ids past the 3 classes (the largest 5) not shown: is it this model's vocabulary?
    v.txt: 1 of the 3 classes have no token in it (tokens the tokenizer adds past it, such as M2M100's language codes or XGLM's made-up words, or a head padded past the vocabulary)
    {0: 'a', 1: 'b'}
    """
    past = [n for n in tokens if n >= classes]
    if past:
        note("%s: %d token%s with ids past the %d classes (the largest %d) not shown: is it"
             " this model's vocabulary?" % (where, len(past), "" if len(past) == 1 else "s",
                                            classes, max(past)))
    missing = classes - (len(tokens) - len(past))
    if missing:
        note("%s: %d of the %d classes have no token in it (tokens the tokenizer adds past"
             " it, such as M2M100's language codes or XGLM's made-up words, or a head padded"
             " past the vocabulary)" % (where, missing, classes))
    return {n: token for n, token in tokens.items() if n < classes}


def _id(value, where):
    # The range first: int() of a Decimal such as 1e999999 would take long.
    if (isinstance(value, bool) or not isinstance(value, (int, decimal.Decimal))
            or not 0 <= value <= _MAX_ID or value != int(value)):
        raise InputError("%s is %s; expected a token id, a whole number from 0 to %d"
                         % (where, describe_json(value), _MAX_ID))
    return int(value)


def _token(value, where):
    if not isinstance(value, str):
        raise InputError("%s is %s; expected a token (a string)" % (where, describe_json(value)))
    return value


def _token_ids(mapping, where):
    """{id: token} of a {token: id} object; an id given to two tokens is refused,
    since either token could name the class."""
    tokens = {}
    for token, value in mapping.items():
        id_ = _id(value, "%s[%s]" % (where, excerpt(token)))
        if id_ in tokens:
            raise InputError("%s gives id %d to two tokens, %s and %s; expected one token"
                             " an id" % (where, id_, excerpt(tokens[id_]), excerpt(token)))
        tokens[id_] = token
    return tokens


def _listed(values, where, scored):
    """{id: token} of a list of tokens, or of [token, score] pairs."""
    if not isinstance(values, list):
        raise InputError("%s is %s; expected a list" % (where, describe_json(values)))
    tokens = {}
    for n, value in enumerate(values):
        if scored:
            if not isinstance(value, list) or len(value) != 2:
                raise InputError("%s[%d] is %s; expected [token, score]"
                                 % (where, n, describe_json(value)))
            value = value[0]
        tokens[n] = _token(value, "%s[%d]" % (where, n))
    return tokens


def _tokenizer(document, path):
    model = document.get("model")
    if not isinstance(model, dict) or "vocab" not in model:
        raise InputError("%s: model is %s; expected an object with a vocab"
                         % (path, describe_json(model)))
    vocab = model["vocab"]
    if isinstance(vocab, dict):
        tokens = _token_ids(vocab, "%s: model.vocab" % path)
    else:
        tokens = _listed(vocab, "%s: model.vocab" % path, scored=True)
    added = document.get("added_tokens") or []
    if not isinstance(added, list):
        raise InputError("%s: added_tokens is %s; expected a list" % (path, describe_json(added)))
    for n, entry in enumerate(added):
        where = "%s: added_tokens[%d]" % (path, n)
        if not isinstance(entry, dict):
            raise InputError("%s is %s; expected {\"id\", \"content\", ...}"
                             % (where, describe_json(entry)))
        tokens[_id(entry.get("id"), where + ".id")] = _token(entry.get("content"),
                                                              where + ".content")
    return tokens


def _lines(text):
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def read_vocab(path):
    """{id: token} of the vocabulary file ``path`` (module docstring).

    >>> import os, tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = os.path.join(folder, "v.vocab")
    ...     with open(path, "w", encoding="utf-8") as handle:
    ...         _ = handle.write("<unk>\\t0\\n\\u2581the\\t-1.5\\n")
    ...     read_vocab(path)
    {0: '<unk>', 1: '▁the'}
    """
    name = os.path.basename(path).lower()
    if name.endswith(".model"):
        return sentencepiece_tokens(path)
    text = read_text(path)
    if name.endswith(".json"):
        document = parse_json(text, path)
        if isinstance(document, list):
            return _listed(document, path, scored=False)
        if not isinstance(document, dict):
            raise InputError("%s is %s; expected a vocabulary" % (path, describe_json(document)))
        if "model" in document and isinstance(document.get("model"), dict):
            return _tokenizer(document, path)
        return _token_ids(document, path)
    lines = _lines(text)
    if name.endswith(".vocab"):
        tokens = {}
        for n, line in enumerate(lines):
            token, tab, _ = line.rpartition("\t")
            if not tab:
                raise InputError("%s: line %d has no tab (a sentencepiece .vocab line is"
                                 " token<TAB>score)" % (path, n + 1))
            tokens[n] = token
        return tokens
    return dict(enumerate(lines))
