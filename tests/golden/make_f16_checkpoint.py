#!/usr/bin/python3
"""ckpt_mixed_f16.icl: ckpt_mixed.icl's weights stored as f16 (checkpoint version 2, see
core/model/icl/checkpoint.h), written with Python's own IEEE half conversion
(struct format 'e', round to nearest even), independent of the C++ writer.

The first values of 'wte' are replaced by EDGES, the cases a half conversion gets wrong
first: ties to even, subnormals, the largest half, signed zero. test_checkpoint.cpp sets
the same values on the f32 model, saves it as f16 and expects these bytes exactly.

Rerun from the repository root (Python's standard library only):
    python3 tests/golden/make_f16_checkpoint.py
"""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))

# Kept in the same order in tests/unit/test_checkpoint.cpp (kF16Edges).
EDGES = [
    1.0 + 2.0 ** -11,        # halfway between 1 and the next half: to 1 (even)
    1.0 + 3 * 2.0 ** -11,    # halfway, the lower neighbour odd: rounds up
    -(1.0 + 2.0 ** -11 + 2.0 ** -20),  # just past halfway: up in magnitude
    65504.0,                 # the largest half
    65519.0,                 # below the halfway point to 65536: to 65504
    2.0 ** -24,              # the smallest subnormal
    2.0 ** -25,              # halfway between 0 and it: to 0 (even)
    3 * 2.0 ** -25,          # halfway between 1 and 2 units: to 2 units (even)
    2.0 ** -14 - 2.0 ** -25,  # halfway below the smallest normal: to it (even)
    -0.0,
    1e-8,                    # below half a unit: to 0
    0.1,
]


def fnv1a64(data):
    h = 0xCBF29CE484222325
    for b in data:
        h ^= b
        h = (h * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def to_f16(src_path, dst_path, edges=()):
    src = open(src_path, "rb").read()
    assert src[:8] == b"ICLGPTCK"
    version, header_size = struct.unpack_from("<II", src, 8)
    assert version == 1
    count = (len(src) - header_size - 8) // 4
    values = list(struct.unpack_from(f"<{count}f", src, header_size))
    # 'wte' is the first tensor of the table: its data starts at offset 0
    values[:len(edges)] = [struct.unpack("<f", struct.pack("<f", v))[0] for v in edges]  # as float32
    header = bytearray(src[:header_size]) + struct.pack("<I", 1)  # encoding 1 = f16
    struct.pack_into("<II", header, 8, 2, header_size + 4)
    blob = bytes(header) + b"".join(struct.pack("<e", v) for v in values)
    blob += struct.pack("<Q", fnv1a64(blob))
    with open(dst_path, "wb") as f:
        f.write(blob)


def main():
    to_f16(os.path.join(HERE, "ckpt_mixed.icl"), os.path.join(HERE, "ckpt_mixed_f16.icl"), EDGES)
    # a seed for the checkpoint fuzz target (tests/fuzz), so it starts from a version 2 file
    corpus = os.path.join(HERE, "..", "fuzz", "corpus", "fuzz_checkpoint")
    to_f16(os.path.join(corpus, "seed-mixed.icl"), os.path.join(corpus, "seed-mixed-f16.icl"))


if __name__ == "__main__":
    main()
