"""Write a synthetic output layer as a torch checkpoint or a .safetensors
file, then read it with read_model: what reading a model costs.

    python tests/benchmarks/model_reading.py write FORMAT C D PATH
    python tests/benchmarks/model_reading.py read PATH [TENSOR]

FORMAT is torch (the zip format torch.save writes, built here by hand
with pickle opcodes: no torch), legacy (the format before torch 1.6) or
safetensors.  The layer is C x D float32 values of a seeded generator,
stored as ``lm_head.weight``, beside a (D,) ``norm.weight``.  ``read``
prints the seconds read_model took in this process; time the whole
command from outside to compare formats.
"""

import os
import random
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

from reviews.formats.layers import read_model  # noqa: E402
from tests.support.arrays import safetensors_bytes  # noqa: E402
from tests.support.torch_files import archive, legacy, state_dict  # noqa: E402


def write(form, classes, dim, path):
    generator = random.Random(0)
    head = struct.pack("<%df" % (classes * dim),
                       *(generator.gauss(0, 1) for _ in range(classes * dim)))
    norm = struct.pack("<%df" % dim, *([1.0] * dim))
    if form == "safetensors":
        content = safetensors_bytes([("lm_head.weight", "F32", (classes, dim), head),
                                     ("norm.weight", "F32", (dim,), norm)])
    else:
        pickle = state_dict([("lm_head.weight", "0", classes * dim, 0, (classes, dim), (dim, 1)),
                             ("norm.weight", "1", dim, 0, (dim,), (1,))],
                            legacy=form == "legacy")
        storages = [("0", classes * dim, head), ("1", dim, norm)]
        content = (legacy(pickle, storages) if form == "legacy"
                   else archive(pickle, [(key, data) for key, _, data in storages]))
    with open(path, "wb") as handle:
        handle.write(content)


def main(argv):
    if argv[:1] == ["write"]:
        form, classes, dim, path = argv[1], int(argv[2]), int(argv[3]), argv[4]
        write(form, classes, dim, path)
        return
    start = time.perf_counter()
    layer = read_model(argv[1], tensor=argv[2] if len(argv) > 2 else None)
    print("%d x %d read in %.2f s" % (len(layer.weights), len(layer.weights[0]),
                                      time.perf_counter() - start))


if __name__ == "__main__":
    main(sys.argv[1:])
