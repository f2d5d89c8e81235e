"""PyTorch checkpoints (.bin, .pt, .pth) read without running them.

torch.save writes a zip archive (torch >= 1.6) with one top folder: the
pickle ``data.pkl`` of the state dict, and each tensor storage's raw bytes
as a member ``data/KEY``.  The legacy format (before 1.6) is a row of
pickles (a magic number, the protocol version 1001, the system's
description, the state dict, the storages' keys), then each storage as its
length in 8 bytes and its raw bytes.  A pickle is a program: loading one with
pickle.load may call any function it names.  Here it is never run as is:

- every opcode is read first (reviews.formats.pickle_screen, no code runs) and only
  those a state dict needs are allowed; a global other than the few below
  is refused then, by name (GLOBAL's, INST's, or the two strings written
  just before STACK_GLOBAL), before anything runs; memo indices are bounded
  by the pickle's length (a huge index would make the C unpickler allocate
  memory in proportion), and containers nest at most 100 deep;
- then a pickle.Unpickler whose find_class maps the allowed names to this
  module's own stand-ins and refuses any other, and whose persistent_load
  turns each storage into a record, builds the state dict of tensor
  records (no recursion: the unpickler is a loop, the records are flat).

The names allowed: collections.OrderedDict, torch._utils._rebuild_tensor_v2
and _rebuild_parameter, and the typed storages (torch.FloatStorage, ...).
A tensor's values are read only when asked for, from its storage member
(stored, or deflated within reviews.formats.archive's limit of values per
compressed byte, and checked against its CRC) or its place in a legacy
file, little-endian unless the archive's ``byteorder`` (or the legacy
system description) says big (a byteorder other than little or big is
refused), at its offset, shape and strides (a view of
more values than its storage holds is refused); a storage shared by tied
weights is read once.  Each pickle is at most 16 MiB and
2**20 opcodes.

    torch_arrays    the Arrays of an open torch checkpoint
"""

import array
import io
import pickletools
import posixpath

from reviews.errors import InputError
from reviews.formats.archive import ZipMember, check_inflation, zip_errors, zip_members
from reviews.formats.binary import (KINDS, MAX_DIMENSIONS, Array, Widened, read_values,
                                     value_count)
from reviews.formats.pickle_screen import Call, Refused, StandIn, StandInUnpickler, screen
from reviews.shown import excerpt, shown_shape

__all__ = ["torch_arrays"]

_STORAGES = {"DoubleStorage": "f8", "FloatStorage": "f4", "HalfStorage": "f2",
             "BFloat16Storage": "bf16", "LongStorage": "i8", "IntStorage": "i4",
             "ShortStorage": "i2", "CharStorage": "i1", "ByteStorage": "u1"}
# A state dict's pickle is some 100 bytes and 30 opcodes per tensor; each
# opcode makes at most one object, so this many cost at most some 100 MB.
_MAX_PICKLE = 2 ** 24

# The legacy format's first pickle (protocol 2, LONG1 of 10 bytes): its
# magic number, then its protocol version.
_LEGACY_START = b"\x80\x02\x8a\x0a"
_LEGACY_MAGIC = 0x1950a86a20f9469cfc6c
_LEGACY_PROTOCOL = 1001
_DTYPES = {"f8": "float64", "f4": "float32", "f2": "float16", "bf16": "bfloat16",
           "i8": "int64", "i4": "int32", "i2": "int16", "i1": "int8", "u1": "uint8"}


class _StateDict(dict):
    """collections.OrderedDict as a state dict's pickle builds it: its
    ``_metadata`` (set by BUILD) is not needed."""

    def __setstate__(self, state):
        if not isinstance(state, dict):
            raise Refused("an ordered dict's state is not a dict")


class _Storage(StandIn):
    """A storage named by a persistent id: its member key, kind and length."""

    __slots__ = ("key", "kind", "numel")

    def __init__(self, key, kind, numel):
        self.key, self.kind, self.numel = key, kind, numel


class _Tensor(StandIn):
    """A tensor's view of a storage: offset, shape and strides in elements."""

    __slots__ = ("storage", "offset", "shape", "stride")

    def __init__(self, storage, offset, shape, stride):
        self.storage, self.offset, self.shape, self.stride = storage, offset, shape, stride


class _Kind(StandIn):
    """A typed storage's class, as a persistent id names it."""

    __slots__ = ("kind",)

    def __init__(self, kind):
        self.kind = kind


def _ints(value, what):
    if not isinstance(value, tuple) or len(value) > MAX_DIMENSIONS or not all(
            type(n) is int and n >= 0 for n in value):
        raise Refused("a tensor's %s is not a tuple of at most %d non-negative ints"
                       % (what, MAX_DIMENSIONS))
    return value


def _rebuild_tensor(storage, offset, shape, stride, *rest):
    if not isinstance(storage, _Storage) or type(offset) is not int or offset < 0:
        raise Refused("_rebuild_tensor_v2 is called with other than a storage and an offset")
    shape, stride = _ints(shape, "size"), _ints(stride, "stride")
    if len(shape) != len(stride) or len(rest) > 3:
        raise Refused("_rebuild_tensor_v2 is called with %d sizes and %d strides"
                       % (len(shape), len(stride)))
    return _Tensor(storage, offset, shape, stride)


def _rebuild_parameter(data, *rest):
    if not isinstance(data, _Tensor) or len(rest) > 2:
        raise Refused("_rebuild_parameter is called with other than a tensor")
    return data


_GLOBALS = {("collections", "OrderedDict"): Call(_StateDict),
            ("torch._utils", "_rebuild_tensor_v2"): Call(_rebuild_tensor),
            ("torch._utils", "_rebuild_parameter"): Call(_rebuild_parameter)}
_GLOBALS.update((("torch", name), _Kind(kind)) for name, kind in _STORAGES.items())


def _refusal(where, module, name):
    shown = "%s.%s" % (excerpt(module)[1:-1], excerpt(name)[1:-1])
    if module == "torch" and name.endswith("Storage"):
        return InputError("%s: %s is not read (%s are)"
                          % (where, shown, ", ".join(sorted(_STORAGES))))
    return InputError("%s: refusing to run code named by the file: %s" % (where, shown))


class _TorchUnpickler(StandInUnpickler):
    """An unpickler that builds only the stand-ins, storages by their
    persistent ids: any other global is refused."""

    def __init__(self, data, where):
        super().__init__(data, where, _GLOBALS, _refusal)
        self.storages = {}

    def persistent_load(self, pid):
        if (not isinstance(pid, tuple) or len(pid) not in (5, 6) or pid[0] != "storage"
                or not isinstance(pid[1], _Kind) or not isinstance(pid[2], str)
                or type(pid[4]) is not int or pid[4] < 0):
            raise Refused("a persistent id is not a storage")
        if len(pid) == 6 and pid[5] is not None:
            raise Refused("storage %s is a view of another: not read" % excerpt(pid[2]))
        storage = self.storages.setdefault(pid[2], _Storage(pid[2], pid[1].kind, pid[4]))
        if (storage.kind, storage.numel) != (pid[1].kind, pid[4]):
            raise Refused("storage %s is named with two types or sizes" % excerpt(pid[2]))
        return storage


def _state_dict(data, where):
    """({name: _Tensor}, {key: _Storage}) of a state dict's pickle, run only
    with stand-ins."""
    if isinstance(data, tuple):   # from _next_pickle: screened already
        data, where = data
    else:
        screen(data, where, _GLOBALS, _refusal)
    unpickler = _TorchUnpickler(data, where)
    loaded = unpickler.load_screened("a state dict")
    if isinstance(loaded, dict) and not any(isinstance(v, _Tensor) for v in loaded.values()):
        # A training checkpoint keeps the weights under one key.
        for key in ("state_dict", "model"):
            if isinstance(loaded.get(key), dict):
                loaded = loaded[key]
                break
    if not isinstance(loaded, dict):
        raise InputError("%s: holds %s, not a state dict" % (where, type(loaded).__name__))
    return ({name: value for name, value in loaded.items()
             if isinstance(name, str) and isinstance(value, _Tensor)}, unpickler.storages)


def torch_arrays(handle, size, path):
    """[Array] of the open torch checkpoint ``handle`` of ``size`` bytes."""
    start = handle.read(4)
    handle.seek(0)
    if start == b"PK\x03\x04":
        tensors, read_storage = _zip_checkpoint(handle, size, path)
    elif start == _LEGACY_START:
        tensors, read_storage = _legacy_checkpoint(handle, size, path)
    else:
        raise InputError("%s is not a torch checkpoint (neither the zip archive of torch >= 1.6"
                         " nor the legacy format)" % path)
    storages = {}

    def tensor_array(name, tensor):
        where = "%s, tensor %s" % (path, excerpt(name))
        count = value_count(tensor.shape, where)
        if count > tensor.storage.numel:
            # Only repeated strides (0 or overlapping) see more values than
            # the storage holds: no weight matrix is stored so, and a few
            # bytes would become gigabytes.
            raise InputError("%s: shape %s has %d values, more than its storage's %d"
                             " (strides %s repeat them)"
                             % (where, shown_shape(tensor.shape), count, tensor.storage.numel,
                                shown_shape(tensor.stride)))
        last = tensor.offset + sum((n - 1) * s for n, s in zip(tensor.shape, tensor.stride))
        if count and last >= tensor.storage.numel:
            raise InputError("%s: shape %s with strides %s at offset %d reaches past its"
                             " storage of %d values" % (where, shown_shape(tensor.shape),
                                                        shown_shape(tensor.stride),
                                                        tensor.offset, tensor.storage.numel))

        def load():
            key = tensor.storage.key
            if key not in storages:   # tied weights share one storage: read once
                storages[key] = read_storage(tensor.storage)
            return _view(storages[key], tensor, count)
        return Array(name, tensor.shape, _DTYPES[tensor.storage.kind], load)
    return [tensor_array(name, tensor) for name, tensor in tensors.items()]


def _zip_checkpoint(handle, size, path):
    """({name: _Tensor}, read_storage) of a zip checkpoint: the state dict
    of ARCHIVE/data.pkl, storages in ARCHIVE/data/KEY."""
    members = {info.filename: info for info in zip_members(handle, path)}
    pickles = [name for name in members if posixpath.basename(name) == "data.pkl"
               and name.count("/") == 1]
    if len(pickles) != 1:
        raise InputError("%s: expected one ARCHIVE/data.pkl member, found %d"
                         % (path, len(pickles)))
    root = pickles[0][:-len("data.pkl")]
    byteorder = _member_bytes(handle, size, members, root + "byteorder", path, 16)
    if byteorder not in (b"", b"little", b"big"):   # absent before torch 1.10: little
        raise InputError("%s, member %s: the byte order is %s; expected little or big"
                         % (path, excerpt(root + "byteorder"), excerpt(
                             byteorder.decode("ascii", "backslashreplace"))))
    big_endian = byteorder == b"big"
    where = "%s, member %s" % (path, excerpt(pickles[0]))
    tensors, _ = _state_dict(_member_bytes(handle, size, members, pickles[0], path,
                                           _MAX_PICKLE), where)

    def read_storage(storage):
        return _storage(handle, size, members, root, storage, big_endian, path)
    return tensors, read_storage


def _legacy_checkpoint(handle, size, path):
    """({name: _Tensor}, read_storage) of a legacy checkpoint (torch < 1.6):
    pickles of the magic number, the protocol version, the system's
    description and the state dict, then the storages' keys, then each
    storage as its length (8 bytes, little-endian) and its bytes."""
    if _load(_next_pickle(handle, size, path, "the magic number")) != _LEGACY_MAGIC:
        raise InputError("%s: not a torch checkpoint (no legacy magic number)" % path)
    protocol = _load(_next_pickle(handle, size, path, "the protocol version"))
    if protocol != _LEGACY_PROTOCOL:
        raise InputError("%s: legacy protocol version %r is not read (1001 is)"
                         % (path, protocol if type(protocol) is int else type(protocol).__name__))
    system = _load(_next_pickle(handle, size, path, "the system description"))
    if not isinstance(system, dict) or not isinstance(system.get("little_endian"), bool):
        raise InputError("%s: the system description does not say the byte order" % path)
    tensors, storages = _state_dict(_next_pickle(handle, size, path, "the state dict"),
                                    "%s (the state dict)" % path)
    keys = _load(_next_pickle(handle, size, path, "the storage keys"))
    if not isinstance(keys, list) or not all(isinstance(key, str) for key in keys):
        raise InputError("%s: the storage keys are not a list of strings" % path)
    places = {}
    for key in keys:
        storage = storages.get(key)
        where = "%s, storage %s" % (path, excerpt(key))
        if storage is None or key in places:
            raise InputError("%s is %s" % (where, "listed twice" if key in places
                                           else "not named by the state dict"))
        length = handle.read(8)
        if len(length) < 8 or int.from_bytes(length, "little") != storage.numel:
            raise InputError("%s: its length (8 bytes at byte %d) is not its %d values"
                             % (where, handle.tell() - len(length), storage.numel))
        start = handle.tell()
        end = start + value_count((storage.numel,), where) * KINDS[storage.kind]
        if end > size:
            raise InputError("%s: its %d values run past the end of the file"
                             % (where, storage.numel))
        places[key] = start
        handle.seek(end)
    if handle.tell() != size:
        # Bytes no reader of the format reads, which a report would still hash.
        raise InputError("%s: %d bytes follow the last storage, where a legacy checkpoint ends"
                         % (path, size - handle.tell()))

    def read_storage(storage):
        where = "%s, storage %s" % (path, excerpt(storage.key))
        if storage.key not in places:
            raise InputError("%s is not in the file" % where)
        handle.seek(places[storage.key])
        return read_values(handle, storage.kind, storage.numel, not system["little_endian"],
                           where)
    return tensors, read_storage


def _next_pickle(handle, size, path, what):
    """The bytes of the pickle at the handle's position; the handle moves past it."""
    start = handle.tell()
    data = handle.read(min(_MAX_PICKLE, size - start))
    where = "%s (%s, at byte %d)" % (path, what, start)
    try:
        end = next((position for opcode, _, position in pickletools.genops(io.BytesIO(data))
                    if opcode.name == "STOP"), None)
    except ValueError as error:
        raise InputError("%s: not a readable pickle: %s" % (where, error)) from None
    if end is None:
        raise InputError("%s: no pickle ends within %d bytes" % (where, _MAX_PICKLE))
    handle.seek(start + end + 1)
    data = data[:end + 1]
    screen(data, where, _GLOBALS, _refusal)   # outside the try: its InputError names the place already
    return data, where


def _load(pickle_and_where):
    """A small pickle (a number, a dict, a list) run with the stand-ins only."""
    data, where = pickle_and_where
    try:
        return _TorchUnpickler(data, where).load()
    except InputError:
        raise
    except Exception as error:   # only the stand-ins ran: any failure is the file's
        raise InputError("%s: %s: %s" % (where, type(error).__name__,
                                         excerpt(str(error)))) from None


def _member_bytes(handle, size, members, name, path, limit):
    """The data of a small member (at most ``limit`` bytes), b"" if absent."""
    info = members.get(name)
    if info is None:
        return b""
    where = "%s, member %s" % (path, excerpt(name))
    if info.file_size > limit:
        raise InputError("%s has %d bytes, past the limit of %d" % (where, info.file_size, limit))
    with zip_errors(where):
        return ZipMember(handle, info, size, where).read(info.file_size)


def _storage(handle, size, members, root, storage, big_endian, path):
    """The values of a storage, from its member data/KEY."""
    name = root + "data/" + storage.key
    where = "%s, member %s" % (path, excerpt(name))
    info = members.get(name)
    if info is None:
        raise InputError("%s: no member %s for a storage" % (path, excerpt(name)))
    count = value_count((storage.numel,), where)
    if info.file_size != count * KINDS[storage.kind]:
        raise InputError("%s has %d bytes; its storage of %d values needs %d"
                         % (where, info.file_size, count, count * KINDS[storage.kind]))
    check_inflation(info, count, "its storage", where,
                    "torch.save stores storages uncompressed")
    with zip_errors(where):
        return read_values(ZipMember(handle, info, size, where), storage.kind, count,
                           big_endian, where)


def _part(values, offset, count):
    """The storage's values ``offset`` to ``offset + count`` - 1; 16-bit
    floats still as read (reviews.formats.layers keeps bfloat16 rows so)."""
    if isinstance(values, Widened):
        return values.part(offset, offset + count)
    return values[offset:offset + count]


def _view(values, tensor, count):
    """(the tensor's values from its storage's, fortran): a slice when they
    lie in C order (fortran False) or, for a matrix, in column-major order
    (a transposed head: fortran True); else a copy in C order."""
    shape, stride, offset = tensor.shape, tensor.stride, tensor.offset
    contiguous, step = True, 1
    for n, s in zip(reversed(shape), reversed(stride)):
        contiguous = contiguous and (n == 1 or s == step)
        step *= n
    if contiguous or count == 0:
        return _part(values, offset, count), False
    if len(shape) == 2 and stride == (1, shape[0]):
        return _part(values, offset, count), True
    indices = [offset]
    for n, s in zip(shape, stride):
        indices = [i + k * s for i in indices for k in range(n)]
    return memoryview(array.array(values.format, [values[i] for i in indices])), False
