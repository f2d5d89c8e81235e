"""HDF5 files as h5py writes them by default: groups, datasets, attributes.

The part of the HDF5 file format (The HDF Group's "HDF5 File Format
Specification") that h5py and Keras write with the library's default,
earliest-compatible settings, and nothing else: superblock version 0 or 1
at the start of the file, version 1 object headers (their continuation
blocks followed), groups as symbol tables (a version 1 B-tree of symbol
table nodes, names in a local heap), datasets of little- or big-endian
IEEE floats (16, 32, 64 bits) and integers stored contiguous, compact or
chunked (a version 1 B-tree of chunks) through the deflate and shuffle
filters, and attributes of strings, fixed-length or variable-length (in a
global heap).  Anything else is refused by name: a superblock of version
2 or 3, version 2 object headers, groups with link messages, shared
messages, other filters.

Every address and length is checked against the file before it is read;
each object header, B-tree node and heap is read once (a cycle of links
or of continuation blocks is refused); groups nest at most MAX_DEPTH deep
and a file holds at most MAX_TENSORS datasets; a dataset's values are
within MAX_VALUES, and its chunks, which may not overlap, must be every
chunk of its extent; a deflated dataset, and each of its chunks, holds at
most 4 values per stored byte (or 2**16), as a compressed .npz member
does, so that a few kilobytes never inflate to gigabytes.

    read_hdf5     an Hdf5 of an open file: its datasets as Arrays, its attributes
    Hdf5          the datasets (named by their paths) and attributes(group)
    MAX_DEPTH     32: the most levels of groups read
"""

import io
import struct
import zlib
from collections import namedtuple

from reviews.errors import InputError
from reviews.formats.binary import MAX_DIMENSIONS, Array, read_values, value_count
from reviews.formats.binary import MAX_TENSORS
from reviews.formats.source import MAX_TEXT_BYTES
from reviews.shown import excerpt, shown_shape

__all__ = ["read_hdf5", "Hdf5", "MAX_DEPTH"]

_SIGNATURE = b"\x89HDF\r\n\x1a\n"
MAX_DEPTH = 32
# Object headers, B-tree nodes and heaps read in all: Keras's files have
# some thousands; each costs one read.
_MAX_BLOCKS = 2 ** 20
_MAX_NAME = 2 ** 16
# A deflated dataset: at most this many values per stored byte, or _SMALL.
_VALUES_PER_BYTE = 4
_SMALL = 2 ** 16
# Message types (the specification's section IV.A.2).
_DATASPACE, _DATATYPE, _LAYOUT, _FILTERS, _ATTRIBUTE, _CONTINUATION, _SYMBOLS = (
    0x01, 0x03, 0x08, 0x0B, 0x0C, 0x10, 0x11)
_LINKS = (0x02, 0x06, 0x0A)   # link info, link, group info: new-style groups
_DEFLATE, _SHUFFLE = 1, 2
# IEEE floats: size -> (precision, exponent location, exponent size,
# mantissa location, mantissa size, bias, sign location).
_FLOATS = {2: (16, 10, 5, 0, 10, 15, 15), 4: (32, 23, 8, 0, 23, 127, 31),
           8: (64, 52, 11, 0, 52, 1023, 63)}

Hdf5 = namedtuple("Hdf5", "arrays attributes")
Hdf5.__doc__ = """What read_hdf5 reads: ``arrays``, an Array per dataset of numbers named by
its path ("model_weights/dense/dense/kernel:0"), and ``attributes(group)``,
the {name: value} of a group's attributes of strings (a str, or a list of
str for a 1-D array), "" for the root."""

_Type = namedtuple("_Type", "kind size big_endian")   # kind: a KINDS key, "string", "vlen"


class _File:
    """Reads within the file: every address and length checked first."""

    def __init__(self, handle, size, path):
        self.handle, self.size, self.path = handle, size, path
        self.offsets = self.lengths = 8
        self.blocks = 0

    def fail(self, problem, where=None):
        raise InputError("%s: %s%s" % (self.path, "" if where is None else
                                       "byte %d: " % where, problem))

    def read(self, address, n, what):
        if address < 0 or n < 0 or address + n > self.size:
            self.fail("%s of %d bytes at byte %d runs past the end of the file (%d bytes)"
                      % (what, n, address, self.size))
        self.handle.seek(address)
        data = self.handle.read(n)
        if len(data) != n:
            self.fail("the file ends in %s" % what, address)
        return data

    def block(self, address, n, what):
        """A structure's bytes, counted against the limit of structures read."""
        self.blocks += 1
        if self.blocks > _MAX_BLOCKS:
            self.fail("more than %d object headers, tree nodes and heaps" % _MAX_BLOCKS)
        return self.read(address, n, what)

    def undefined(self, address):
        return address == (1 << 8 * self.offsets) - 1


class _Fields:
    """Little-endian fields read in order from a structure's bytes."""

    def __init__(self, file, data, start, what):
        self.file, self.data, self.start, self.what, self.at = file, data, start, what, 0

    def take(self, n):
        if self.at + n > len(self.data):
            self.file.fail("%s ends before its fields do" % self.what, self.start)
        self.at += n
        return self.data[self.at - n:self.at]

    def int(self, n):
        return int.from_bytes(self.take(n), "little")

    def address(self):
        return self.int(self.file.offsets)

    def length(self):
        return self.int(self.file.lengths)

    def pad(self, multiple):
        self.take(-self.at % multiple)


def _superblock(file):
    """The root group's object header address."""
    data = file.read(0, min(file.size, 128), "the superblock")
    if not data.startswith(_SIGNATURE):
        file.fail("not an HDF5 file (no signature at byte 0)")
    version = data[8] if len(data) > 8 else None
    if version not in (0, 1):
        file.fail("superblock version %s: versions 0 and 1, which h5py writes by default, are"
                  " read (not files written with libver='latest')" % version, 8)
    fields = _Fields(file, data, 0, "the superblock")
    fields.take(13)
    file.offsets, file.lengths = fields.int(1), fields.int(1)
    if file.offsets not in (2, 4, 8) or file.lengths not in (2, 4, 8):
        file.fail("offsets of %d bytes and lengths of %d: 2, 4 or 8 are read"
                  % (file.offsets, file.lengths), 13)
    fields.take(1 + 4 + 4 + (4 if version == 1 else 0))
    base = fields.address()
    if base != 0:
        file.fail("base address %d: only files whose superblock is at byte 0 are read" % base)
    for _ in range(3):
        fields.address()   # free space, end of file, driver information
    return _entry(fields)[1]


def _entry(fields):
    """(name offset, object header address) of a symbol table entry."""
    name, header = fields.address(), fields.address()
    fields.take(4 + 4 + 16)   # cache type, reserved, scratch pad
    return name, header


class _Object:
    """A version 1 object header's messages: {type: [(flags, data)]}."""

    def __init__(self, file, address, seen):
        if address in seen:
            file.fail("the object header at byte %d is reached twice (a cycle of links?)"
                      % address)
        seen.add(address)
        self.file, self.address, self.messages = file, address, {}
        prefix = file.block(address, 16, "an object header")
        if prefix[0] != 1:
            file.fail("object header version %d: version 1, which h5py writes by default, is"
                      " read" % prefix[0], address)
        count, size = struct.unpack_from("<H4xI", prefix, 2)
        blocks, read = [(address + 16, size)], 0
        chained = set()
        while blocks and read < count:
            start, length = blocks.pop(0)
            data = file.block(start, length, "an object header's messages")
            at = 0
            while at + 8 <= length and read < count:
                kind, size, flags = struct.unpack_from("<HHB", data, at)
                if at + 8 + size > length:
                    file.fail("a message of %d bytes runs past its object header" % size,
                              start + at)
                body = data[at + 8:at + 8 + size]
                read += 1
                if flags & 2 and kind in (_DATATYPE, _DATASPACE, _FILTERS, _LAYOUT):
                    file.fail("a shared message (type %d): not read" % kind, start + at)
                if kind == _CONTINUATION:
                    fields = _Fields(file, body, start + at + 8, "a continuation message")
                    block = (fields.address(), fields.length())
                    if block in chained:
                        file.fail("a continuation block is reached twice", start + at)
                    chained.add(block)
                    blocks.append(block)
                else:
                    self.messages.setdefault(kind, []).append((body, start + at + 8))
                at += 8 + size

    def one(self, kind, what):
        """The data of the object's one message of ``kind``, and its place."""
        found = self.messages.get(kind, [])
        if len(found) != 1:
            self.file.fail("the object header at byte %d has %d %s messages, not one"
                           % (self.address, len(found), what))
        return found[0]


def _local_heap(file, address):
    """The data segment of a local heap."""
    data = file.block(address, 8 + 2 * file.lengths + file.offsets, "a local heap")
    if not data.startswith(b"HEAP"):
        file.fail("no local heap signature", address)
    fields = _Fields(file, data, address, "a local heap")
    fields.take(8)
    size = fields.length()
    fields.length()
    return file.read(fields.address(), size, "a local heap's data")


def _name(file, heap, offset):
    end = heap.find(b"\0", offset, offset + _MAX_NAME)
    if offset >= len(heap) or end < 0:
        file.fail("a link name at heap offset %d does not end within %d bytes"
                  % (offset, _MAX_NAME))
    try:
        return heap[offset:end].decode("utf-8")
    except UnicodeDecodeError:
        file.fail("a link name is not UTF-8: %r" % heap[offset:end][:60])


def _btree(file, address, kind, key_size, seen):
    """The (key, child address) pairs of a version 1 B-tree's leaves."""
    leaves, pending = [], [(address, None)]
    while pending:
        node, level_above = pending.pop()
        if node in seen:
            file.fail("the B-tree node at byte %d is reached twice" % node)
        seen.add(node)
        head = file.block(node, 8 + 2 * file.offsets, "a B-tree node")
        if head[:4] != b"TREE" or head[4] != kind:
            file.fail("no B-tree node of type %d" % kind, node)
        level, used = head[5], struct.unpack_from("<H", head, 6)[0]
        if level_above is not None and level != level_above - 1:
            file.fail("a B-tree node of level %d under one of level %d" % (level, level_above),
                      node)
        entry = key_size + file.offsets
        body = file.read(node + len(head), used * entry + key_size, "a B-tree node's entries")
        fields = _Fields(file, body, node, "a B-tree node")
        pairs = []
        for _ in range(used):
            key = fields.take(key_size)
            pairs.append((key, fields.address()))
        if level == 0:
            leaves.extend(pairs)
        else:
            pending.extend((child, level) for _, child in reversed(pairs))
    return leaves


def _group_members(file, obj, seen):
    """{name: object header address} of a group's symbol table."""
    if any(kind in obj.messages for kind in _LINKS):
        file.fail("a group of link messages (HDF5 1.8's new-style groups): not read",
                  obj.address)
    body, where = obj.one(_SYMBOLS, "symbol table")
    fields = _Fields(file, body, where, "a symbol table message")
    tree, heap = fields.address(), _local_heap(file, fields.address())
    members = {}
    for _, node in _btree(file, tree, 0, file.lengths, seen):
        head = file.block(node, 8, "a symbol table node")
        if head[:4] != b"SNOD":
            file.fail("no symbol table node", node)
        count = struct.unpack_from("<H", head, 6)[0]
        size = 2 * file.offsets + 24
        fields = _Fields(file, file.read(node + 8, count * size, "a symbol table node"), node,
                         "a symbol table node")
        for _ in range(count):
            name_at, header = _entry(fields)
            name = _name(file, heap, name_at)
            if name in members:
                file.fail("a group holds two links named %s" % excerpt(name), node)
            members[name] = header
    return members


def _datatype(file, data, where):
    """The _Type of a datatype message's bytes."""
    fields = _Fields(file, data, where, "a datatype message")
    first, bits, size = fields.int(1), fields.int(3), fields.int(4)
    kind = first & 15
    if kind == 0 and size in (1, 2, 4, 8):
        offset, precision = fields.int(2), fields.int(2)
        if offset == 0 and precision == 8 * size:
            return _Type(("i" if bits & 8 else "u") + str(size), size, bool(bits & 1))
    if kind == 1 and size in _FLOATS:
        offset, precision = fields.int(2), fields.int(2)
        shape = (precision, fields.int(1), fields.int(1), fields.int(1), fields.int(1),
                 fields.int(4), bits >> 8 & 255)
        # Bits 4-5: the mantissa's leading 1 implied; 1-3 padding and 6 (VAX order) unset.
        if offset == 0 and shape == _FLOATS[size] and bits & 0x7E == 0x20:
            return _Type("f" + str(size), size, bool(bits & 1))
    if kind == 3:
        return _Type("string", size, False)
    if kind == 9 and bits & 15 == 1:
        return _Type("vlen", 4 + file.offsets + 4, False)
    file.fail("datatype of class %d and %d bytes: IEEE floats, integers and strings are read"
              % (kind, size), where)


def _dataspace(file, data, where):
    """The shape of a dataspace message's bytes (() for a scalar)."""
    fields = _Fields(file, data, where, "a dataspace message")
    version, rank = fields.int(1), fields.int(1)
    fields.take(1)   # flags: maximum sizes follow the sizes, unread
    if version == 1:
        fields.take(5)
    elif version == 2:
        if fields.int(1) == 2:
            return None   # a null dataspace: no data
    else:
        file.fail("dataspace version %d: versions 1 and 2 are read" % version, where)
    if rank > MAX_DIMENSIONS:
        file.fail("a dataspace of %d dimensions, past the limit of %d"
                  % (rank, MAX_DIMENSIONS), where)
    return tuple(fields.length() for _ in range(rank))


def _attributes(file, obj):
    """{name: (type, shape, data, where)} of an object's attribute messages."""
    found = {}
    for body, where in obj.messages.get(_ATTRIBUTE, []):
        fields = _Fields(file, body, where, "an attribute message")
        version = fields.int(1)
        if version not in (1, 2, 3):
            file.fail("attribute version %d: versions 1 to 3 are read" % version, where)
        flags = fields.int(1)
        if version > 1 and flags & 3:
            file.fail("an attribute of a shared type or space: not read", where)
        name_size, type_size, space_size = fields.int(2), fields.int(2), fields.int(2)
        if version == 3:
            fields.take(1)
        pad = 8 if version == 1 else 1
        name = fields.take(name_size).rstrip(b"\0").decode("utf-8", "backslashreplace")
        fields.pad(pad)
        kind = fields.take(type_size)
        fields.pad(pad)
        space = fields.take(space_size)
        fields.pad(pad)
        found[name] = (kind, space, body[fields.at:], where)
    return found


def _global_string(file, data, where):
    """A variable-length string: its length, then the global heap object it is."""
    fields = _Fields(file, data, where, "a variable-length string")
    length, collection, index = fields.int(4), fields.address(), fields.int(4)
    if length > MAX_TEXT_BYTES:
        file.fail("a string of %d bytes, past the limit of %d" % (length, MAX_TEXT_BYTES), where)
    head = file.block(collection, 8 + file.lengths, "a global heap")
    if head[:4] != b"GCOL":
        file.fail("no global heap collection", collection)
    size = int.from_bytes(head[8:], "little")
    heap = file.read(collection, size, "a global heap collection")
    at = 8 + file.lengths
    while at + 8 + file.lengths <= size:
        number = struct.unpack_from("<H", heap, at)[0]
        stored = int.from_bytes(heap[at + 8:at + 8 + file.lengths], "little")
        if number == 0:
            break
        if number == index:
            if stored < length or at + 8 + file.lengths + length > size:
                file.fail("a global heap object shorter than its string", collection + at)
            start = at + 8 + file.lengths
            return heap[start:start + length]
        at += 8 + file.lengths + stored + (-stored % 8)
    file.fail("global heap object %d is not in its collection" % index, collection)


def _strings(file, attribute):
    """The str (scalar) or list of str of an attribute of strings, or None."""
    kind, space, data, where = attribute
    value_type = _datatype(file, kind, where)
    shape = _dataspace(file, space, where)
    if value_type.kind not in ("string", "vlen") or shape is None or len(shape) > 1:
        return None
    count = shape[0] if shape else 1
    if count * value_type.size > len(data):
        file.fail("an attribute's %d values run past its message" % count, where)
    values = []
    for k in range(count):
        raw = data[k * value_type.size:(k + 1) * value_type.size]
        if value_type.kind == "vlen":
            raw = _global_string(file, raw, where)
        values.append(raw.split(b"\0", 1)[0].decode("utf-8", "backslashreplace"))
    return values if shape else values[0]


def _layout(file, obj, shape, itemsize):
    """("contiguous", address) or ("compact", bytes) or ("chunked", tree, chunk shape)."""
    body, where = obj.one(_LAYOUT, "layout")
    fields = _Fields(file, body, where, "a layout message")
    version, kind = fields.int(1), fields.int(1)
    if version != 3:
        file.fail("layout version %d: version 3, which h5py writes by default, is read"
                  % version, where)
    if kind == 0:
        size = fields.int(2)
        return "compact", fields.take(size)
    if kind == 1:
        address, size = fields.address(), fields.length()
        if file.undefined(address):
            file.fail("a dataset whose data was never written", where)
        return "contiguous", (address, size)
    if kind == 2:
        rank = fields.int(1)
        tree = fields.address()
        chunk = tuple(fields.int(4) for _ in range(rank))
        if rank != len(shape) + 1 or chunk[-1] != itemsize or 0 in chunk:
            file.fail("chunks of shape %s for a dataset of shape %s"
                      % (shown_shape(chunk), shown_shape(shape)), where)
        value_count(chunk[:-1], "%s: byte %d: a chunk" % (file.path, where))
        return "chunked", (tree, chunk[:-1])
    file.fail("layout class %d: compact, contiguous and chunked datasets are read" % kind,
              where)


def _filters(file, obj):
    """The filter ids of a dataset's pipeline, in order."""
    if _FILTERS not in obj.messages:
        return []
    body, where = obj.one(_FILTERS, "filter pipeline")
    fields = _Fields(file, body, where, "a filter pipeline message")
    version, count = fields.int(1), fields.int(1)
    if version == 1:
        fields.take(6)
    elif version != 2:
        file.fail("filter pipeline version %d: versions 1 and 2 are read" % version, where)
    ids = []
    for _ in range(count):
        ident = fields.int(2)
        name_size = fields.int(2) if version == 1 or ident >= 256 else 0
        fields.int(2)   # flags
        values = fields.int(2)
        fields.take(name_size)   # version 1 pads it to 8 bytes
        fields.take(4 * values)
        if version == 1 and values % 2:
            fields.take(4)
        if ident not in (_DEFLATE, _SHUFFLE):
            file.fail("filter %d: deflate (1) and shuffle (2) are read" % ident, where)
        ids.append(ident)
    return ids


def _unfiltered(file, data, filters, mask, size, itemsize, where):
    """A chunk's bytes through its filters, in reverse, to exactly ``size`` bytes."""
    for position in reversed(range(len(filters))):
        if mask >> position & 1:
            continue
        if filters[position] == _DEFLATE:
            inflate = zlib.decompressobj()
            try:
                data = inflate.decompress(data, size + 1)
            except zlib.error as error:
                file.fail("a chunk does not inflate: %s" % error, where)
            if len(data) > size or not inflate.eof:
                file.fail("a chunk does not inflate to its %d bytes" % size, where)
        else:
            count = len(data) // itemsize
            planes = bytearray(len(data))
            for k in range(itemsize):
                planes[k::itemsize] = data[k * count:(k + 1) * count]
            data = bytes(planes)
    if len(data) != size:
        file.fail("a chunk holds %d bytes, not %d" % (len(data), size), where)
    return data


def _chunked(file, tree, chunk, shape, itemsize, filters, where):
    """The bytes, in C order, of a chunked dataset, and the chunks' stored bytes."""
    rank = len(shape)
    key_size = 8 + 8 * (rank + 1)
    chunks = {}
    for key, address in _btree(file, tree, 1, key_size, set()):
        stored, mask = struct.unpack_from("<II", key)
        corner = struct.unpack_from("<%dQ" % (rank + 1), key, 8)[:rank]
        if any(c % n or c >= s for c, n, s in zip(corner, chunk, shape)) or corner in chunks:
            file.fail("a chunk at %s of a dataset of shape %s chunked by %s"
                      % (shown_shape(corner), shown_shape(shape), shown_shape(chunk)), address)
        chunks[corner] = (address, stored, mask)
    expected = 1
    for s, n in zip(shape, chunk):
        expected *= -(-s // n)
    if len(chunks) != expected:
        file.fail("%d of the %d chunks of a dataset of shape %s are stored"
                  % (len(chunks), expected, shown_shape(shape)), where)
    chunk_bytes = itemsize
    for n in chunk:
        chunk_bytes *= n
    for address, stored, _ in chunks.values():
        if _DEFLATE not in filters and stored != chunk_bytes:
            file.fail("a chunk of %d bytes stores %d" % (chunk_bytes, stored), address)
        if chunk_bytes // itemsize > max(_SMALL, _VALUES_PER_BYTE * stored):
            file.fail("a chunk of %d values is stored in %d bytes, past the limit of 4 values"
                      " per stored byte (or 2**16) for deflated data"
                      % (chunk_bytes // itemsize, stored), address)
    spans = sorted((address, stored) for address, stored, _ in chunks.values())
    for (first, size), (second, _) in zip(spans, spans[1:]):
        if first + size > second:
            file.fail("two chunks overlap", second)
    total = sum(size for _, size in spans)
    values = value_count(shape, file.path)
    if _DEFLATE in filters and values > max(_SMALL, _VALUES_PER_BYTE * total):
        file.fail("a dataset of shape %s has %d values in %d stored bytes, past the limit of"
                  " %d (4 per stored byte, or 2**16) for deflated data"
                  % (shown_shape(shape), values, total, max(_SMALL, _VALUES_PER_BYTE * total)),
                  where)

    def load():
        out = bytearray(values * itemsize)
        strides = [itemsize] * rank
        for axis in range(rank - 2, -1, -1):
            strides[axis] = strides[axis + 1] * shape[axis + 1]
        run = chunk[-1] * itemsize
        for corner, (address, stored, mask) in chunks.items():
            data = _unfiltered(file, file.read(address, stored, "a chunk"), filters, mask,
                               chunk_bytes, itemsize, address)
            inner = [min(n, s - c) for n, s, c in zip(chunk, shape, corner)]
            width = inner[-1] * itemsize
            for index in _indices(inner[:-1]):
                source = 0
                target = corner[-1] * itemsize
                for axis, i in enumerate(index):
                    source = source * chunk[axis] + i
                    target += (corner[axis] + i) * strides[axis]
                source *= run
                out[target:target + width] = data[source:source + width]
        return io.BytesIO(bytes(out))
    return load


def _indices(extent):
    """Every index of a box of ``extent``, in C order (one empty index for none)."""
    indices = [()]
    for n in extent:
        indices = [index + (i,) for index in indices for i in range(n)]
    return indices


def _dataset(file, obj, name):
    """The Array of a dataset of numbers, or None for one of strings."""
    body, where = obj.one(_DATATYPE, "datatype")
    value_type = _datatype(file, body, where)
    body, where = obj.one(_DATASPACE, "dataspace")
    shape = _dataspace(file, body, where)
    if value_type.kind in ("string", "vlen") or shape is None:
        return None
    count = value_count(shape, "%s, dataset %s" % (file.path, excerpt(name)))
    kind, place = _layout(file, obj, shape, value_type.size)
    filters = _filters(file, obj)
    size = count * value_type.size
    if kind == "chunked":
        source = _chunked(file, place[0], place[1], shape, value_type.size, filters, where)
    elif kind == "compact":
        if len(place) != size:
            file.fail("a compact dataset of %d bytes for shape %s" % (len(place), shape), where)
        data = place

        def source():
            return io.BytesIO(data)
    else:
        address, stored = place
        if stored != size or filters:
            file.fail("a contiguous dataset of %d bytes for shape %s%s" % (
                stored, shown_shape(shape), " with filters" if filters else ""), where)
        if address + size > file.size:
            file.fail("a dataset's %d bytes run past the end of the file" % size, address)

        def source():
            file.handle.seek(address)
            return file.handle

    def load():
        return read_values(source(), value_type.kind, count, value_type.big_endian,
                           "%s, dataset %s" % (file.path, excerpt(name))), False
    order = "|" if value_type.size == 1 else ">" if value_type.big_endian else "<"
    return Array(name, shape, order + value_type.kind, load)


def read_hdf5(handle, size, path):
    """The Hdf5 of the open HDF5 file ``handle`` of ``size`` bytes."""
    file = _File(handle, size, path)
    root = _superblock(file)
    seen, arrays, groups = set(), [], {}
    pending = [("", root, 0)]
    while pending:
        name, address, depth = pending.pop()
        obj = _Object(file, address, seen)
        if _SYMBOLS in obj.messages or any(kind in obj.messages for kind in _LINKS):
            if depth >= MAX_DEPTH:
                file.fail("groups nest past %d levels at %s" % (MAX_DEPTH, excerpt(name)))
            groups[name] = obj
            members = _group_members(file, obj, set())
            for member in sorted(members, reverse=True):
                pending.append((name + "/" + member if name else member, members[member],
                                depth + 1))
        elif _LAYOUT in obj.messages:
            array = _dataset(file, obj, name)
            if array is not None:
                arrays.append(array)
                if len(arrays) > MAX_TENSORS:
                    file.fail("more than %d datasets" % MAX_TENSORS)

    def attributes(group):
        found = _attributes(file, groups[group]) if group in groups else {}
        return {key: value for key, value in
                ((key, _strings(file, attribute)) for key, attribute in found.items())
                if value is not None}
    return Hdf5(arrays, attributes)
