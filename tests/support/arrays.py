"""Array files as bytes, for the readers' tests: raw values, .npy, .npz, .safetensors."""

import io
import json
import struct
import warnings
import zipfile


def raw(values, code):
    return struct.pack("<%d%s" % (len(values), code), *values)


def header_bytes(header):
    """The first 8 bytes and the header of a .safetensors file."""
    text = json.dumps(header).encode()
    return struct.pack("<Q", len(text)) + text


def safetensors_bytes(tensors, metadata=None, offsets=None):
    """A .safetensors file of (name, dtype, shape, data bytes) in order;
    ``offsets`` replaces the data_offsets written for each name."""
    header, data = {}, b""
    for name, dtype, shape, body in tensors:
        header[name] = {"dtype": dtype, "shape": list(shape),
                        "data_offsets": (offsets or {}).get(name, [len(data), len(data) + len(body)])}
        data += body
    if metadata is not None:
        header["__metadata__"] = metadata
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    return struct.pack("<Q", len(text)) + text + data


def npz_bytes(members, compression=zipfile.ZIP_STORED):
    """A .npz archive of (member name, bytes)."""
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # zipfile warns of a duplicate name
        with zipfile.ZipFile(buffer, "w", compression) as archive:
            for name, content in members:
                archive.writestr(name, content)
    return buffer.getvalue()


def npy_bytes(values, shape, descr="<f8", fortran=False, version=1):
    """A .npy file as numpy writes it (header padded to 64 bytes); ``shape``
    is a tuple, or the header's text for it; ``values`` a list of floats, or
    the data's bytes."""
    shape = shape if isinstance(shape, str) else repr(shape)
    header = "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }" % (descr, fortran, shape)
    prefix = 10 if version == 1 else 12
    header += " " * (63 - (prefix + len(header)) % 64) + "\n"
    size = struct.pack("<H" if version == 1 else "<I", len(header))
    body = values if isinstance(values, bytes) else struct.pack(
        "%s%d%s" % (descr[0], len(values), "d" if descr[2] == "8" else "f"), *values)
    return b"\x93NUMPY" + bytes([version, 0]) + size + header.encode("latin-1") + body
