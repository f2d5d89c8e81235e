"""Pickles read without running anything they name.

pickletools.genops reads a pickle's opcodes without running any; the
screen here follows them and refuses, by name where it can, what a state
dict (reviews.formats.torch) never needs: any opcode outside a short list,
any global outside those allowed (GLOBAL's and INST's, or the two strings
written or recalled from the memo just before STACK_GLOBAL, as protocol 4
writes them), memo indices past the pickle's length
(a huge one would make the C unpickler allocate in proportion), dict keys
other than strings, small ints, None and bools (keys that all hash alike,
NaNs or multiples of 2**61 - 1, take time quadratic in their number), containers
nested past _MAX_DEPTH (hashing a tuple nested 200,000 deep overflows the
C stack), and more than _MAX_OPCODES opcodes.

Then a StandInUnpickler builds what the screen let through, its
find_class mapping each allowed global to a reader's own stand-in (Call,
or a StandIn whose __setstate__ checks what BUILD sets) and refusing any
other.

    screen            InputError for the first thing a state dict would not do
    StandInUnpickler  an unpickler of stand-ins only; load_screened maps its errors
    StandIn, Call     what the unpickler builds: stand-ins and allowed calls
    Refused           a stand-in's objection (the message says what)
"""

import io
import pickle
import pickletools

from reviews.shown import excerpt

from reviews.errors import InputError

__all__ = ["screen", "StandInUnpickler", "StandIn", "Call", "Refused"]

# What a state dict's pickle does: build tuples, lists, dicts, strings and
# numbers, remember and recall them, call the allowed globals (REDUCE) and
# set an ordered dict's metadata (BUILD).
_OPCODES = frozenset([
    "PROTO", "FRAME", "STOP", "MARK", "GLOBAL", "STACK_GLOBAL", "REDUCE", "BUILD", "BINPERSID",
    "BINPUT", "LONG_BINPUT", "MEMOIZE", "BINGET", "LONG_BINGET",
    "EMPTY_TUPLE", "TUPLE", "TUPLE1", "TUPLE2", "TUPLE3", "EMPTY_LIST", "APPEND", "APPENDS",
    "EMPTY_DICT", "SETITEM", "SETITEMS", "BINUNICODE", "SHORT_BINUNICODE",
    "BININT", "BININT1", "BININT2", "LONG1", "NEWTRUE", "NEWFALSE", "NONE", "BINFLOAT",
    # the raw values of a pickled numpy array (BYTEARRAY8 at protocol 5)
    "SHORT_BINBYTES", "BINBYTES", "BINBYTES8", "BYTEARRAY8",
    # protocols 0 and 1, as numpy's arrays are pickled at them: text
    # opcodes for numbers, strings and the memo, lists and dicts built whole
    "PUT", "GET", "INT", "LONG", "FLOAT", "UNICODE", "LIST", "DICT"])
_PUTS = frozenset(["BINPUT", "LONG_BINPUT", "PUT"])
_GETS = frozenset(["BINGET", "LONG_BINGET", "GET"])
# STACK_GLOBAL's module and name are the two strings before it: written by
# these opcodes, or recalled from the memo (protocol 4 writes a module's
# name once and recalls it after), with memo puts (which leave the stack
# as it is) between.
_STRINGS = frozenset(["SHORT_BINUNICODE", "BINUNICODE", "BINUNICODE8", "UNICODE", "STRING",
                      "BINSTRING", "SHORT_BINSTRING"])
_KEEPS = _PUTS | frozenset(["MEMOIZE", "FRAME"])
# How many objects an opcode takes from the stack (None: all since MARK).
_TAKES = {"TUPLE1": 1, "TUPLE2": 2, "TUPLE3": 3, "APPEND": 1, "SETITEM": 2, "BUILD": 1,
          "REDUCE": 2, "BINPERSID": 1, "TUPLE": None, "APPENDS": None, "SETITEMS": None,
          "LIST": None, "DICT": None}
# Those that put what they took into the object below (the rest make one).
_ADDS = frozenset(["APPEND", "SETITEM", "BUILD", "APPENDS", "SETITEMS"])
# Those that make a container of what they took (the rest make a call's result).
_CONTAINERS = frozenset(["TUPLE1", "TUPLE2", "TUPLE3", "TUPLE", "LIST", "DICT"])
# Containers in a state dict nest a few levels (a checkpoint's dict, the
# state dict, a tensor's arguments, its shape); hashing a tuple nested
# 200,000 deep (a few hundred bytes deflated) overflows the C stack.
_MAX_DEPTH = 100
# A state dict's pickle is some 30 opcodes per tensor; each makes at most
# one object, so this many cost at most some 100 MB.
_MAX_OPCODES = 2 ** 20
# The objects a dict key may be: strings (their hashes are salted), ints
# below 2**60 (each its own hash, but for -1 and -2), None and bools.  Keys
# that hash alike cost time quadratic in their number: NaNs (all hash to 0
# before Python 3.10) or multiples of 2**61 - 1 (0 on every version); 1.4
# KB of them took 44 s.  On the stack such an object stands as _KEY.
_KEYS = _STRINGS | frozenset(["BININT", "BININT1", "BININT2", "NONE", "NEWTRUE", "NEWFALSE"])
# Ints of any size (INT is also protocol 0's bool): keys only if small.
_LONGS = frozenset(["LONG1", "LONG", "INT"])
_LARGEST_KEY = 2 ** 60
_KEY = -1


def _nesting(name, argument, stack, marks, memo):
    """Follow opcode ``name`` on ``stack``, the depths of the objects the
    unpickler would hold (0 for one that holds none, else 1 + the deepest
    it holds), ``marks`` (the stack's lengths at each MARK) and ``memo``
    (index: depth); the depth of the object it makes or adds to.  An
    object that may be a dict key (a string, a small int, None, a bool)
    stands as _KEY, which is a depth of 0.

    A list or dict changed after it is memoized keeps its depth in the
    memo: neither can be hashed, and hashing (or comparing) is what
    recurses.  A malformed pickle is followed leniently (taking from an
    empty stack gives 0): the unpickler refuses it later.
    """
    if name == "MARK":
        marks.append(len(stack))
        return 0
    if name in _TAKES:
        start = (marks.pop() if marks else 0) if _TAKES[name] is None else max(
            len(stack) - _TAKES[name], marks[-1] if marks else 0)
        taken = max(max(stack[start:], default=0), 0)
        del stack[start:]
        if name in _ADDS:
            if not stack:
                return 0
            stack[-1] = max(stack[-1], taken + 1)
        else:   # a call's result holds at most what its arguments held
            stack.append(taken + (name in _CONTAINERS))
    elif name in _PUTS or name == "MEMOIZE":
        memo[argument if name in _PUTS else len(memo)] = stack[-1] if stack else 0
    elif name in _GETS:
        stack.append(memo.get(argument, 0))
    elif name in _KEYS or name in _LONGS and abs(argument) < _LARGEST_KEY:
        stack.append(_KEY)
    elif name not in ("PROTO", "FRAME", "STOP"):
        stack.append(0)   # a float, a large int, a global or an empty container
    return stack[-1] if stack else 0


def _keys(name, stack, marks):
    """The stack entries that SETITEM or SETITEMS would use as dict keys."""
    if name == "SETITEM":
        return stack[-2:-1]
    if name in ("SETITEMS", "DICT") and marks:
        return stack[marks[-1]::2]
    return []


def _named(name, argument, before):
    """(module, name) of the global opcode ``name`` runs, () if it runs
    none, None if it cannot be told (STACK_GLOBAL after other than two
    strings); ``before``: the two opcodes before, as (name, argument)."""
    if name in ("GLOBAL", "INST"):
        module, _, function = argument.partition(" ")
        return module, function
    if name != "STACK_GLOBAL":
        return ()
    if len(before) == 2 and all(opcode in _STRINGS and isinstance(text, str)
                                for opcode, text in before):
        return before[0][1], before[1][1]
    return None


def screen(data, where, allowed, refusal):
    """Read every opcode of the pickle ``data`` without running any:
    InputError for an opcode a state dict does not need, a global not in
    ``allowed`` ((module, name) pairs; ``refusal(where, module, name)``
    makes its error), a memo index past the pickle's length, containers
    nested past _MAX_DEPTH, or more than _MAX_OPCODES opcodes.  ``where``
    starts every message."""
    stack, marks, memo, before = [], [], {}, []
    strings = {}   # memo index: the string it holds
    try:
        for count, (opcode, argument, position) in enumerate(
                pickletools.genops(io.BytesIO(data))):
            if count == _MAX_OPCODES:
                raise InputError("%s: more than %d opcodes, past the limit for a state dict"
                                 % (where, _MAX_OPCODES))
            # What the opcode does as the screen reads it: a recalled string
            # is that string.
            seen = (opcode.name, argument)
            if opcode.name in _GETS and argument in strings:
                seen = ("SHORT_BINUNICODE", strings[argument])
            elif opcode.name in _PUTS or opcode.name == "MEMOIZE":
                index = argument if opcode.name in _PUTS else len(memo)
                if before and before[-1][0] in _STRINGS:
                    strings[index] = before[-1][1]
                else:
                    strings.pop(index, None)
            named = _named(opcode.name, argument, before)
            if named is None:
                raise InputError("%s: byte %d: opcode %s runs a global not named by two strings"
                                 " just before it: refused" % (where, position, opcode.name))
            if named and named not in allowed:
                raise refusal(where, *named)
            if opcode.name not in _OPCODES:
                raise InputError("%s: byte %d: opcode %s is not read (a state dict does not"
                                 " need it)" % (where, position, opcode.name))
            if opcode.name not in _KEEPS:
                before = (before + [seen])[-2:]
            if opcode.name in _PUTS and not 0 <= argument < len(data):
                raise InputError("%s: byte %d: memo index %d past the pickle's %d bytes"
                                 % (where, position, argument, len(data)))
            if any(key != _KEY for key in _keys(opcode.name, stack, marks)):
                raise InputError("%s: byte %d: a dict key other than a string, an int below"
                                 " 2**60, None or a bool: refused (keys that hash alike would"
                                 " take time quadratic in their number)" % (where, position))
            if _nesting(opcode.name, argument, stack, marks, memo) > _MAX_DEPTH:
                raise InputError("%s: byte %d: containers nested more than %d deep, past the"
                                 " limit for a state dict" % (where, position, _MAX_DEPTH))
    except (ValueError, UnicodeDecodeError) as error:
        if isinstance(error, InputError):
            raise
        raise InputError("%s: not a readable pickle: %s" % (where, error)) from None


class Refused(Exception):
    """The pickle does something its reader does not accept: the message says what."""


class StandIn:
    """What the pickle builds: BUILD (which may set attributes) is refused."""

    __slots__ = ()

    def __setstate__(self, state):
        raise Refused("the pickle sets the state of a %s" % type(self).__name__.strip("_"))


class Call(StandIn):
    """An allowed global: calls the stand-in function, and nothing can be
    set on it (BUILD on a function would set its attributes)."""

    __slots__ = ("function",)

    def __init__(self, function):
        self.function = function

    def __call__(self, *arguments):
        return self.function(*arguments)


class StandInUnpickler(pickle.Unpickler):
    """An unpickler of ``data`` whose globals are ``allowed``'s stand-ins
    ({(module, name): stand-in}); any other is ``refusal(where, module,
    name)``, raised."""

    def __init__(self, data, where, allowed, refusal):
        self._stream = io.BytesIO(data)
        super().__init__(self._stream)
        self.where, self._allowed, self._refusal = where, allowed, refusal

    def left(self):
        """How many bytes follow the pickle's STOP, once loaded."""
        return len(self._stream.getbuffer()) - self._stream.tell()

    def find_class(self, module, name):
        if (module, name) not in self._allowed:
            raise self._refusal(self.where, module, name)
        return self._allowed[module, name]

    def load_screened(self, what):
        """What the pickle builds; InputError if it fails, as ``what`` (a
        state dict, ...) would not."""
        try:
            return self.load()
        except InputError:
            raise
        except Refused as refused:
            raise InputError("%s: %s" % (self.where, refused)) from None
        except Exception as error:   # only the stand-ins ran: any failure is the file's
            raise InputError("%s: not %s: %s: %s" % (self.where, what, type(error).__name__,
                                                      excerpt(str(error)))) from None
