"""The pieces of a SentencePiece model file, read as protobuf by the standard library.

A SentencePiece ``.model`` file (T5's ``spiece.model``, Llama's
``tokenizer.model``, XLM-R's and XGLM's ``sentencepiece.bpe.model``) is a
serialized ``ModelProto`` message whose field 1, repeated, holds one
``SentencePiece`` message per id, in id order; that message's field 1 is
the piece, a UTF-8 string.  Only those are read: every other field is
skipped by its wire type, and nothing is run.  The wire format is read and checked
by reviews.formats.protobuf; a piece that is not UTF-8 is an InputError
naming its byte offset.

Fairseq-made models (``sentencepiece.bpe.model``) are numbered by their
tokenizers in fairseq's layout: ``<s>`` 0, ``<pad>`` 1, ``</s>`` 2, ``<unk>``
3, then SentencePiece's piece n (n >= 3) as n + 1 (transformers' XLM-R and
XGLM tokenizers, ``fairseq_offset = 1``).

    sentencepiece_pieces    [piece] of a .model file's bytes, in id order
    sentencepiece_tokens    {id: token} of a .model file, by its name's layout
"""

import os

from reviews.errors import InputError
from reviews.formats.protobuf import LENGTH, fields
from reviews.formats.source import open_regular

__all__ = ["sentencepiece_pieces", "sentencepiece_tokens", "FAIRSEQ_MODEL"]

# The file name of a fairseq-made SentencePiece model.
FAIRSEQ_MODEL = "sentencepiece.bpe.model"
_FAIRSEQ_SPECIAL = ("<s>", "<pad>", "</s>", "<unk>")
# SentencePiece's own first three ids (<unk>, <s>, </s>) are fairseq's special tokens.
_SENTENCEPIECE_SPECIAL = 3
# A model file past this is no tokenizer's (the largest are a few MB).
_MAX_BYTES = 64 * 2 ** 20


def sentencepiece_pieces(data, path):
    """[piece] of the ModelProto ``data`` (bytes), in id order.

    >>> piece = lambda text: b"\\x0a" + bytes([len(text) + 2, 0x0a, len(text)]) + text
    >>> sentencepiece_pieces(piece(b"<unk>") + piece(b"\\xe2\\x96\\x81the"), "m.model")
    ['<unk>', '▁the']
    """
    pieces = []
    for number, wire, value in fields(data, 0, len(data), path):
        if number != 1 or wire != LENGTH:
            continue
        text = None
        for inner, inner_wire, span in fields(data, value[0], value[1], path):
            if inner == 1 and inner_wire == LENGTH:
                text = data[span[0]:span[1]]
        if text is None:
            raise InputError("%s: byte %d: piece %d has no text" % (path, value[0], len(pieces)))
        try:
            pieces.append(text.decode("utf-8"))
        except UnicodeDecodeError:
            raise InputError("%s: byte %d: piece %d is not UTF-8"
                             % (path, value[0], len(pieces))) from None
    if not pieces:
        raise InputError("%s: no pieces: not a SentencePiece model" % path)
    return pieces


def sentencepiece_tokens(path):
    """{id: token} of the SentencePiece model file ``path``: the pieces in
    their own order, or in fairseq's layout for ``sentencepiece.bpe.model``."""
    handle, size = open_regular(path)
    with handle:
        if size > _MAX_BYTES:
            raise InputError("%s has %d bytes, past the limit of %d for a SentencePiece model"
                             % (path, size, _MAX_BYTES))
        pieces = sentencepiece_pieces(handle.read(size), path)
    if os.path.basename(path) != FAIRSEQ_MODEL:
        return dict(enumerate(pieces))
    tokens = dict(enumerate(_FAIRSEQ_SPECIAL))
    tokens.update((n + 1, piece) for n, piece in enumerate(pieces)
                  if n >= _SENTENCEPIECE_SPECIAL)
    return tokens
