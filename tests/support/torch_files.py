"""Torch checkpoints as bytes, for the readers' tests: pickles, zip archives, legacy files."""

import io
import struct
import zipfile

# The pickle opcodes the checkpoints are written with.
PROTO, STOP, MARK, TUPLE, REDUCE, BUILD = b"\x80\x02", b".", b"(", b"t", b"R", b"b"
EMPTY_TUPLE, EMPTY_DICT, EMPTY_LIST = b")", b"}", b"]"
SETITEM, APPEND, BINPERSID, NEWFALSE = b"s", b"a", b"Q", b"\x89"
NEWTRUE, NONE, APPENDS = b"\x88", b"N", b"e"


def glob(module, name):
    return b"c" + module.encode() + b"\n" + name.encode() + b"\n"


def text(value):
    data = value.encode()
    return b"X" + struct.pack("<I", len(data)) + data


def number(n):
    return b"J" + struct.pack("<i", n)


def put(index):
    return b"r" + struct.pack("<I", index)


def state_dict(tensors, storage="FloatStorage", legacy=False):
    """The pickle torch.save writes for tensors (name, key, numel, offset,
    shape, stride), all in storages of one type; ``legacy``: as the legacy
    format writes it (a persistent id ends with its view metadata, None)."""
    out = PROTO + glob("collections", "OrderedDict") + EMPTY_TUPLE + REDUCE
    for name, key, numel, offset, shape, stride in tensors:
        out += text(name) + glob("torch._utils", "_rebuild_tensor_v2") + MARK
        out += (MARK + text("storage") + glob("torch", storage) + text(key) + text("cpu")
                + number(numel) + NONE * legacy + TUPLE + BINPERSID)
        out += number(offset) + MARK + b"".join(map(number, shape)) + TUPLE
        out += MARK + b"".join(map(number, stride)) + TUPLE + NEWFALSE
        out += glob("collections", "OrderedDict") + EMPTY_TUPLE + REDUCE + TUPLE + REDUCE + SETITEM
    return out + STOP


def archive(pickle, storages=(), byteorder=b"little", root="archive",
            compression=zipfile.ZIP_STORED):
    """A torch zip checkpoint: ROOT/data.pkl, ROOT/byteorder, ROOT/data/KEY."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression) as handle:
        handle.writestr(root + "/data.pkl", pickle)
        handle.writestr(root + "/byteorder", byteorder)
        for key, data in storages:
            handle.writestr(root + "/data/" + key, data)
    return buffer.getvalue()


def legacy(pickle, storages, little_endian=True):
    """A legacy torch checkpoint: the magic number, the protocol version,
    the system description, ``pickle``, the keys, then each storage."""
    out = PROTO + b"\x8a\x0a" + (0x1950a86a20f9469cfc6c).to_bytes(10, "little") + STOP
    out += PROTO + b"M" + struct.pack("<H", 1001) + STOP
    out += (PROTO + EMPTY_DICT + text("protocol_version") + number(1001) + SETITEM
            + text("little_endian") + (NEWTRUE if little_endian else NEWFALSE) + SETITEM + STOP)
    out += pickle
    out += PROTO + EMPTY_LIST + MARK + b"".join(text(key) for key, _, _ in storages)
    out += APPENDS + STOP
    for _, numel, data in storages:
        out += struct.pack("<Q", numel) + data
    return out


def floats(values, order="<"):
    return struct.pack("%s%df" % (order, len(values)), *values)
