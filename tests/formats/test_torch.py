"""Tests of reviews.formats.torch: torch checkpoints read without running
them.  The fixture was written by torch.save; every other checkpoint here
is built by hand, opcode by opcode (no torch), and every hostile pickle
would create a file if it ran: the file must not exist afterwards."""

import io
import os
import pickletools
import struct
import zipfile
from unittest import mock

from reviews.argmax.check import check_layer
from reviews.argmax.kernels.bfloat16 import BFloat16Rows
from reviews.cli import main
from reviews.errors import InputError
from reviews.formats import pickle_screen
from reviews.formats import torch as torch_format
from reviews.formats.layers import Tensor, read_model
from tests.support import FileTestCase, fresh_python, listed
from tests.support.models import ExactLayer, model, rows
from tests.support.torch_files import (APPEND, BUILD, EMPTY_DICT, EMPTY_LIST, EMPTY_TUPLE, MARK,
                                       NONE, PROTO, REDUCE, SETITEM, STOP, TUPLE, archive, floats,
                                       glob, legacy, number, put, state_dict, text)


class TestReading(FileTestCase):

    def test_the_fixture_is_read_as_its_raw_bytes_hold(self):
        path = model("gpt2-tied-bin", "pytorch_model.bin")
        with zipfile.ZipFile(path) as handle:
            data = handle.read("pytorch_model/data/0")
        expected = rows((300, 16), list(struct.unpack("<4800f", data)))
        layer = read_model(model("gpt2-tied-bin"))
        self.assertEqual(listed(layer.weights), expected)
        self.assertEqual(layer.weights_tensor, Tensor("lm_head.weight", "float32", (300, 16)))
        results = check_layer(layer.weights)
        self.assertTrue(all(map(ExactLayer(expected).holds, results)))
        self.assertEqual([r.index for r in results if not r.argmaxable], [])

    def test_offsets_strides_and_a_shared_storage(self):
        # Element (i, j) is at offset + i * stride[0] + j * stride[1].
        # w is column-major (a transposed matrix), v a slice, u neither.
        pickle = state_dict([("w", "0", 8, 1, (2, 3), (1, 2)), ("v", "0", 8, 2, (2, 2), (2, 1)),
                             ("u", "0", 8, 0, (2, 2), (1, 3))])
        path = self.write("m.pt", archive(pickle, [("0", floats(range(8)))]))
        layer = read_model(path, tensor="w")
        self.assertEqual(listed(layer.weights), [[1, 3, 5], [2, 4, 6]])
        self.assertEqual(listed(read_model(path, tensor="w", transpose=True).weights),
                         [[1, 2], [3, 4], [5, 6]])
        self.assertEqual(listed(read_model(path, tensor="v").weights), [[2, 3], [4, 5]])
        self.assertEqual(listed(read_model(path, tensor="u").weights), [[0, 3], [1, 4]])

    def test_a_shared_storage_is_read_once(self):
        pickle = state_dict([("w", "0", 8, 0, (2, 3), (3, 1)), ("b", "0", 8, 6, (2,), (1,))])
        path = self.write("m.pt", archive(pickle, [("0", floats(range(8)))]))
        with mock.patch.object(torch_format, "_storage", wraps=torch_format._storage) as read:
            layer = read_model(path, tensor="w", bias_tensor="b")
        self.assertEqual((listed(layer.weights), layer.bias, read.call_count),
                         ([[0, 1, 2], [3, 4, 5]], [6, 7], 1))

    def test_big_endian_and_half_storages(self):
        pickle = state_dict([("w", "k", 4, 0, (2, 2), (2, 1))], "HalfStorage")
        path = self.write("m.pth", archive(pickle, [("k", struct.pack(">4e", 1, 2, 0.5, -1))],
                                           byteorder=b"big"))
        layer = read_model(path)
        self.assertEqual((listed(layer.weights), layer.weights_tensor.dtype),
                         ([[1, 2], [0.5, -1]], "float16"))


    def test_bfloat16_tensors_keep_their_own_patterns_as_read(self):
        # A weight and a bias sharing one storage; the weight read big-endian and transposed too.
        patterns = [0x3F80, 0x4000, 0xC040, 0x0000, 0x3E80, 0xBF00, 0x4100, 0x0001]
        pickle = state_dict([("w", "0", 8, 0, (2, 3), (3, 1)), ("b", "0", 8, 6, (2,), (1,))],
                            "BFloat16Storage")
        for order, byteorder in (("<", b"little"), (">", b"big")):
            data = struct.pack("%s8H" % order, *patterns)
            path = self.write("m.pt", archive(pickle, [("0", data)], byteorder=byteorder))
            layer = read_model(path, tensor="w", bias_tensor="b")
            self.assertIsInstance(layer.weights, BFloat16Rows)
            self.assertEqual(layer.weights.codes, struct.pack("<6H", *patterns[:6]))
            self.assertEqual((listed(layer.weights), layer.bias),
                             ([[1, 2, -3], [0, 0.25, -0.5]], [8, 2 ** -133]))
        pickle = state_dict([("w", "0", 6, 0, (3, 2), (1, 3))], "BFloat16Storage")
        path = self.write("m.pt", archive(pickle, [("0", struct.pack("<6H", *patterns[:6]))]))
        layer = read_model(path, transpose=True)
        self.assertIsInstance(layer.weights, BFloat16Rows)
        self.assertEqual(listed(layer.weights), [[1, 2, -3], [0, 0.25, -0.5]])

    def test_a_byte_order_other_than_little_or_big_is_refused(self):
        pickle = state_dict([("w", "k", 4, 0, (2, 2), (2, 1))])
        for byteorder in (b"middle", b"LITTLE", b"\xff"):
            with self.subTest(byteorder=byteorder):
                path = self.write("m.pt", archive(pickle, [("k", floats([1, 2, 3, 4]))],
                                                  byteorder=byteorder))
                with self.assertRaises(InputError) as caught:
                    read_model(path)
                self.assertEqual(str(caught.exception),
                                 "%s, member 'archive/byteorder': the byte order is %r;"
                                 " expected little or big"
                                 % (path, byteorder.decode("ascii", "backslashreplace")))


def protocol_4_state_dict(tensors):
    """The pickle torch.save(..., pickle_protocol=4) writes for parameters
    (name, key, numel, offset, shape, stride) in float storages, written by
    Python's own pickler (FRAME, MEMOIZE, STACK_GLOBAL, and each module's
    name recalled from the memo after its first use) with stand-ins of
    torch's names in modules made for it."""
    import collections
    import pickle as standard
    import types
    torch, utils = types.ModuleType("torch"), types.ModuleType("torch._utils")
    torch._utils = utils

    def _rebuild_tensor_v2(*arguments):
        raise AssertionError("never called")

    def _rebuild_parameter(*arguments):
        raise AssertionError("never called")

    for function in (_rebuild_tensor_v2, _rebuild_parameter):
        function.__module__, function.__qualname__ = utils.__name__, function.__name__
        setattr(utils, function.__name__, function)
    torch.FloatStorage = type("FloatStorage", (), {"__module__": "torch"})

    class Storage:
        def __init__(self, key, numel):
            self.key, self.numel = key, numel

    class Tensor:
        def __init__(self, storage, offset, shape, stride):
            self.arguments = (storage, offset, shape, stride, False, collections.OrderedDict())

        def __reduce__(self):
            return _rebuild_tensor_v2, self.arguments

    class Parameter:
        def __init__(self, tensor):
            self.tensor = tensor

        def __reduce__(self):
            return _rebuild_parameter, (self.tensor, False, collections.OrderedDict())

    class Pickler(standard.Pickler):
        def persistent_id(self, value):
            if isinstance(value, Storage):
                return ("storage", torch.FloatStorage, value.key, "cpu", value.numel)
            return None

    storages, state = {}, collections.OrderedDict()
    for name, key, numel, offset, shape, stride in tensors:
        storage = storages.setdefault(key, Storage(key, numel))
        state[name] = Parameter(Tensor(storage, offset, shape, stride))
    buffer = io.BytesIO()
    with mock.patch.dict("sys.modules", {"torch": torch, "torch._utils": utils}):
        Pickler(buffer, protocol=4).dump(state)
    return buffer.getvalue()


class TestProtocol4(FileTestCase):

    def test_a_protocol_4_state_dict_is_read_through_its_stack_globals(self):
        pickle = protocol_4_state_dict([("w", "0", 6, 0, (3, 2), (2, 1)),
                                        ("b", "1", 3, 0, (3,), (1,))])
        # The module of _rebuild_tensor_v2 is recalled from the memo, its
        # first use being _rebuild_parameter's.
        opcodes = [(opcode.name, argument) for opcode, argument, _ in pickletools.genops(pickle)]
        named = opcodes.index(("SHORT_BINUNICODE", "_rebuild_tensor_v2"))
        self.assertEqual([name for name, _ in opcodes[named - 1:named + 3]],
                         ["BINGET", "SHORT_BINUNICODE", "MEMOIZE", "STACK_GLOBAL"])
        path = self.write("m.pt", archive(pickle, [("0", floats([1, 0, 0, 1, -1, -1])),
                                                   ("1", floats([0, 0, 1]))]))
        layer = read_model(path, tensor="w", bias_tensor="b")
        self.assertEqual((listed(layer.weights), layer.bias), ([[1, 0], [0, 1], [-1, -1]],
                                                               [0, 0, 1]))


class TestShards(FileTestCase):

    def test_torch_shards_through_their_index(self):
        folder = os.path.join(self.folder.name, "m")
        os.makedirs(folder)
        head = state_dict([("lm_head.weight", "0", 4, 0, (2, 2), (2, 1))])
        other = state_dict([("model.norm.weight", "0", 2, 0, (2,), (1,))])
        for name, pickle, values in (("a.bin", head, [1, 2, 3, 4]), ("b.bin", other, [0, 0])):
            with open(os.path.join(folder, name), "wb") as handle:
                handle.write(archive(pickle, [("0", floats(values))]))
        with open(os.path.join(folder, "pytorch_model.bin.index.json"), "w") as handle:
            handle.write('{"weight_map": {"lm_head.weight": "a.bin",'
                         ' "model.norm.weight": "b.bin"}}')
        layer = read_model(folder)
        self.assertEqual((listed(layer.weights), [os.path.basename(p) for p in layer.files]),
                         ([[1, 2], [3, 4]], ["pytorch_model.bin.index.json", "a.bin"]))


class TestHostile(FileTestCase):

    def setUp(self):
        super().setUp()
        self.target = os.path.join(self.folder.name, "pwned")

    def assertRefusedUnrun(self, pickle, message):
        path = self.write("m.bin", archive(pickle))
        with self.assertRaisesRegex(InputError, message):
            read_model(path)
        self.assertFalse(os.path.exists(self.target))
        return path

    def test_a_global_of_posix_system_is_refused_by_name(self):
        pickle = (PROTO + glob("posix", "system") + MARK + text("touch " + self.target) + TUPLE
                  + REDUCE + STOP)
        path = self.assertRefusedUnrun(
            pickle, "member 'archive/data.pkl': refusing to run code named by the file:"
                    " posix.system$")
        out, err = io.StringIO(), io.StringIO()
        self.assertEqual(main(["check-layer", path], out, err), 2)
        self.assertEqual(err.getvalue().count("\n"), 1)

    def test_the_unpickler_alone_refuses_it_too(self):
        # Without the opcode screen, find_class is the second line.
        pickle = (PROTO + glob("builtins", "exec") + MARK
                  + text("open(%r, 'w').close()" % self.target) + TUPLE + REDUCE + STOP)
        with self.assertRaisesRegex(InputError, "refusing to run code named by the file:"
                                                " builtins.exec"):
            torch_format._TorchUnpickler(pickle, "x").load()
        self.assertFalse(os.path.exists(self.target))

    def test_eval_inside_nested_containers(self):
        payload = (glob("builtins", "eval") + MARK + text("open(%r, 'w')" % self.target)
                   + TUPLE + REDUCE)
        pickle = PROTO + EMPTY_LIST + EMPTY_DICT + text("k") + EMPTY_LIST * 50
        pickle += payload + APPEND * 50 + SETITEM + APPEND + STOP
        self.assertRefusedUnrun(pickle, "refusing to run code named by the file: builtins.eval")

    def test_a_reduce_payload_as_python_writes_it(self):
        class Payload:
            def __reduce__(this):
                return (os.system, ("touch " + self.target,))
        import pickle as standard
        data = standard.dumps({"w": Payload()}, protocol=2)
        self.assertRefusedUnrun(data, "refusing to run code named by the file: (posix|nt).system")

    def test_a_deflated_storage_holds_at_most_four_values_per_compressed_byte(self):
        # 2**17 float32 zeros deflate to some 500 bytes: refused before they
        # are inflated, as an .npz member would be; 2**16 of them are read.
        for numel, refused in ((2 ** 17, True), (2 ** 16, False)):
            pickle = state_dict([("w", "0", numel, 0, (numel // 2, 2), (2, 1))])
            path = self.write("m.pt", archive(pickle, [("0", floats([0] * numel))],
                                              compression=zipfile.ZIP_DEFLATED))
            with self.subTest(numel=numel):
                if refused:
                    self.assertRaisesRegex(
                        InputError, r"member 'archive/data/0': its storage has 131072 values in"
                                    r" \d+ compressed bytes, past the limit of 65536 \(4 per"
                                    r" compressed byte, or 2\*\*16\)", read_model, path)
                else:
                    self.assertEqual(len(read_model(path).weights), numel // 2)

    def test_a_huge_memo_index_is_refused_before_it_is_allocated(self):
        pickle = PROTO + EMPTY_LIST + put(2 ** 32 - 1) + STOP
        self.assertRefusedUnrun(pickle, "memo index 4294967295 past the pickle's")

    def test_self_referencing_and_deeply_nested_objects_are_not_state_dicts(self):
        cycle = PROTO + EMPTY_LIST + put(0) + b"h\x00" + APPEND + STOP
        self.assertRefusedUnrun(cycle, "holds list, not a state dict")
        deep = PROTO + EMPTY_LIST * 100000 + APPEND * 99999 + STOP
        self.assertRefusedUnrun(deep, "byte 100102: containers nested more than 100 deep")

    def test_a_deeply_nested_dict_key_is_refused_before_it_is_hashed(self):
        # Hashing a tuple 200,000 deep overflows the C stack: the process
        # would die of SIGSEGV, so it runs in its own interpreter.  The
        # zip deflates the pickle's 200,000 TUPLE1 opcodes to 300 bytes.
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as handle:
            handle.writestr("archive/data.pkl", PROTO + EMPTY_DICT + NONE + b"\x85" * 200000
                            + NONE + SETITEM + STOP)
        path = self.write("m.bin", buffer.getvalue())
        self.assertLess(os.path.getsize(path), 1000)
        done = fresh_python("from reviews.formats.layers import read_model\n"
                            "from reviews.errors import InputError\n"
                            "try:\n    read_model(%r)\nexcept InputError as error:\n"
                            "    print(error)" % path)
        self.assertEqual((done.returncode, done.stderr), (0, ""))
        self.assertEqual(done.stdout, "%s, member 'archive/data.pkl': byte 104: containers nested"
                                      " more than 100 deep, past the limit for a state dict\n"
                         % path)

    def test_dict_keys_that_hash_alike_are_refused_before_the_dict_is_built(self):
        # All NaNs hash alike before Python 3.10, all multiples of 2**61 - 1
        # on every version: 1.4 KB of such keys took 44 s to insert.
        nan = b"G" + struct.pack(">d", float("nan"))
        collides = b"\x8a\x09" + (3 * (2 ** 61 - 1)).to_bytes(9, "little")   # LONG1
        for key in (nan, collides, b"G" + struct.pack(">d", 0.5), EMPTY_TUPLE):
            with self.subTest(key=key):
                pickle = PROTO + EMPTY_DICT + MARK + (key + NONE) * 3 + b"u" + STOP
                self.assertRefusedUnrun(pickle, "byte [0-9]+: a dict key other than a string, an"
                                                " int below 2\\*\\*60, None or a bool: refused")
        # A training checkpoint's optimizer state has small int keys.
        optimizer = EMPTY_DICT + MARK + number(0) + EMPTY_DICT + number(-1) + NONE + b"u"
        weights = state_dict([("w", "0", 4, 0, (2, 2), (2, 1))])
        checkpoint = (PROTO + EMPTY_DICT + MARK + text("model") + weights[2:-1]
                      + text("optimizer") + optimizer + b"u" + STOP)
        path = self.write("m.pt", archive(checkpoint, [("0", floats([1, 2, 3, 4]))]))
        self.assertEqual(listed(read_model(path).weights), [[1, 2], [3, 4]])

    def test_a_pickle_of_millions_of_objects_is_refused_before_it_runs(self):
        # 2**21 empty lists deflate to a few KB; unpickled they would take
        # some 120 MB, more with each doubling.  The screen counts them at
        # a limit lowered here (reading 2**20 opcodes costs seconds).
        self.assertEqual(pickle_screen._MAX_OPCODES, 2 ** 20)
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as handle:
            handle.writestr("archive/data.pkl", PROTO + EMPTY_LIST * 2 ** 21 + STOP)
        path = self.write("m.bin", buffer.getvalue())
        self.assertLess(os.path.getsize(path), 2 ** 14)
        with mock.patch.object(pickle_screen, "_MAX_OPCODES", 2 ** 12), \
                self.assertRaisesRegex(InputError, "more than 4096 opcodes"):
            read_model(path)

    def test_setting_state_on_a_stand_in_is_refused(self):
        pickle = (PROTO + glob("torch._utils", "_rebuild_tensor_v2") + EMPTY_DICT + text("x")
                  + number(1) + SETITEM + BUILD + STOP)
        self.assertRefusedUnrun(pickle, "the pickle sets the state of a Call")

    def test_a_storage_type_not_read_is_named_as_such(self):
        pickle = state_dict([("w", "0", 4, 0, (2, 2), (2, 1))], "BoolStorage")
        self.assertRefusedUnrun(pickle, "torch.BoolStorage is not read \\(BFloat16Storage,")

    def test_every_opcode_that_names_a_global_is_refused_by_the_name(self):
        payload = text("touch " + self.target)
        short = b"\x8c\x05posix\x8c\x06system"   # SHORT_BINUNICODE twice
        for pickle in (PROTO + short + b"\x93" + payload + b"\x85" + REDUCE + STOP,
                       PROTO + b"\x8c\x05posix\x94\x8c\x06system\x94\x93" + payload + b"\x85"
                       + REDUCE + STOP,   # as protocol 4 writes it: MEMOIZE after each
                       PROTO + MARK + payload + b"iposix\nsystem\n" + STOP):   # INST
            with self.subTest(pickle=pickle):
                self.assertRefusedUnrun(pickle, "member 'archive/data.pkl': refusing to run"
                                                " code named by the file: posix.system$")

    def test_stack_global_after_a_recalled_string_is_refused_by_the_name(self):
        pickle = (PROTO + text("posix") + put(0) + b"h\x00" + text("system") + b"\x93"
                  + text("touch " + self.target) + b"\x85" + REDUCE + STOP)
        self.assertRefusedUnrun(pickle, "refusing to run code named by the file: posix.system$")
        # A memo entry put over by another object no longer names the module.
        pickle = (PROTO + text("posix") + put(0) + EMPTY_LIST + put(0) + b"h\x00"
                  + text("system") + b"\x93" + STOP)
        self.assertRefusedUnrun(pickle, "opcode STACK_GLOBAL runs a global not named by two"
                                        " strings just before it: refused")

    def test_other_opcodes_are_refused(self):
        # STACK_GLOBAL after other than two strings: the name is not told.
        pickle = PROTO + text("posix") + number(3) + b"\x93" + STOP
        self.assertRefusedUnrun(pickle, "byte 17: opcode STACK_GLOBAL runs a global not named by"
                                        " two strings just before it: refused")
        pickle = PROTO + EMPTY_DICT + b"\x8f" + STOP   # EMPTY_SET
        self.assertRefusedUnrun(pickle, "byte 3: opcode EMPTY_SET is not read")


class TestDamaged(FileTestCase):

    def test_every_truncation_of_the_fixture_is_one_line(self):
        with open(model("gpt2-tied-bin", "pytorch_model.bin"), "rb") as handle:
            data = handle.read()
        for cut in (0, 3, 100, 2000, 20000, len(data) - 1000, len(data) - 1):
            with self.subTest(cut=cut):
                path = self.write("m.bin", data[:cut])
                out, err = io.StringIO(), io.StringIO()
                self.assertEqual(main(["check-layer", path], out, err), 2)
                self.assertRegex(err.getvalue(), r"^counterexamples: error: [^\n]*\n$")

    def test_lying_sizes_are_refused(self):
        for tensors, data, message in (
                ([("w", "0", 8, 0, (2, 2), (2, 1))], floats(range(4)),
                 "has 16 bytes; its storage of 8 values needs 32"),
                ([("w", "0", 4, 1, (2, 2), (2, 1))], floats(range(4)),
                 r"shape \(2, 2\) with strides \(2, 1\) at offset 1 reaches past its storage"),
                ([("w", "1", 4, 0, (2, 2), (2, 1))], floats(range(4)),
                 "no member 'archive/data/1' for a storage"),
                ([("w", "0", 4, 0, (2, 2), (2,))], floats(range(4)),
                 "called with 2 sizes and 1 strides")):
            with self.subTest(message=message):
                path = self.write("m.bin", archive(state_dict(tensors), [("0", data)]))
                with self.assertRaisesRegex(InputError, message):
                    read_model(path)

    def test_a_view_of_more_values_than_its_storage_is_refused(self):
        # Zero or overlapping strides repeat values: from one stored float a
        # view of 8192 x 8192 would be 64 Mi values read from 607 bytes.
        for numel, shape, stride, message in (
                (1, (8192, 8192), (0, 0), r"shape \(8192, 8192\) has 67108864 values, more than"
                                          r" its storage's 1 \(strides \(0, 0\) repeat them\)"),
                (5, (3, 3), (1, 1), r"shape \(3, 3\) has 9 values, more than its storage's 5")):
            with self.subTest(shape=shape):
                pickle = state_dict([("w", "0", numel, 0, shape, stride)])
                path = self.write("m.bin", archive(pickle, [("0", floats(range(numel)))]))
                with self.assertRaisesRegex(InputError, "tensor 'w': " + message):
                    read_model(path)

    def test_a_foreign_file_is_named(self):
        path = self.write("m.bin", b"\x80\x03" + bytes(20))
        with self.assertRaisesRegex(InputError, "m.bin is not a torch checkpoint"):
            read_model(path)


class TestLegacy(FileTestCase):

    TENSORS = [("w", "7", 8, 1, (2, 3), (1, 2)), ("v", "7", 8, 0, (2, 2), (2, 1)),
               ("b", "9", 2, 0, (2,), (1,))]

    def content(self, little_endian=True, storages=None):
        order = "<" if little_endian else ">"
        storages = storages or [("7", 8, floats(range(8), order)), ("9", 2, floats([5, 6], order))]
        return legacy(state_dict(self.TENSORS, legacy=True), storages, little_endian)

    def test_storages_after_the_pickles_in_either_byte_order(self):
        for little_endian in (True, False):
            with self.subTest(little_endian=little_endian):
                path = self.write("m.bin", self.content(little_endian))
                layer = read_model(path, tensor="w", bias_tensor="b")
                self.assertEqual((listed(layer.weights), layer.bias), ([[1, 3, 5], [2, 4, 6]], [5, 6]))
                self.assertEqual(listed(read_model(path, tensor="v").weights), [[0, 1], [2, 3]])

    def test_every_truncation_is_one_error(self):
        content = self.content()
        for cut in range(0, len(content), 7):
            with self.subTest(cut=cut):
                path = self.write("m.bin", content[:cut])
                with self.assertRaises(InputError):
                    read_model(path, tensor="w", bias_tensor="b")

    def test_bytes_after_the_last_storage_are_refused(self):
        # No reader reads them, but the report would hash every one.
        path = self.write("m.bin", self.content() + b"\0" * 100)
        with self.assertRaises(InputError) as caught:
            read_model(path, tensor="w")
        self.assertEqual(str(caught.exception), "%s: 100 bytes follow the last storage, where a"
                                                " legacy checkpoint ends" % path)

    def test_a_real_legacy_file_ends_with_its_last_storage(self):
        self.assertEqual(len(read_model(self.write("m.bin", self.content()),
                                        tensor="w").weights), 2)

    def test_lying_lengths_and_keys_are_refused(self):
        for storages, message in (
                ([("7", 9, floats(range(9))), ("9", 2, floats([5, 6]))],
                 r"storage '7': its length \(8 bytes at byte \d+\) is not its 8 values"),
                ([("7", 8, floats(range(8))), ("8", 2, floats([5, 6]))],
                 "storage '8' is not named by the state dict"),
                ([("7", 8, floats(range(8)))] * 2, "storage '7' is listed twice")):
            with self.subTest(message=message):
                path = self.write("m.bin", self.content(storages=storages))
                with self.assertRaisesRegex(InputError, message):
                    read_model(path, tensor="w")

    def test_a_hostile_state_dict_is_refused_unrun(self):
        target = os.path.join(self.folder.name, "pwned")
        pickle = (PROTO + glob("posix", "system") + MARK + text("touch " + target) + TUPLE
                  + REDUCE + STOP)
        path = self.write("m.bin", legacy(pickle, []))
        with self.assertRaisesRegex(InputError, r"^[^()]*m.bin \(the state dict, at byte \d+\):"
                                                " refusing to run code named by the file:"
                                                " posix.system$"):
            read_model(path)
        self.assertFalse(os.path.exists(target))
