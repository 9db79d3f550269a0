#!/usr/bin/python3
"""Subsets the fonts /lab/ packs to the characters the app can show from its sources.

    subset-fonts.py --out DIR --texts DIR [--texts DIR]... [--typed FONT.ttf]... FONT.ttf...

Keeps, from each font, the characters of every text file under the --texts folders
(the lessons, the app's own labels, the demos' titles and notes) plus the blocks
fonts.cpp asks ImGui for (Latin-1, Latin Extended-A, Greek, combining marks, general
punctuation, sub- and superscripts, letterlike symbols, arrows, mathematical operators,
CJK punctuation, Hangul compatibility jamo). A font also named by --typed (the face a
learner's typed answers are drawn in) keeps every Hangul syllable of KS X 1001 as well,
the 2,350 that Korean text uses (EUC-KR's repertoire), so typed Korean shows even where
no lesson uses the syllable. Layout tables and hinting go (ImGui draws with
stb_truetype: no shaping, no hinting). Writes DIR/<font file name> and prints the
sizes. Needs Debian's python3-fonttools.
"""
import argparse
import logging
import os
import sys

from fontTools import subset

# The ranges of native/app/fonts.cpp (default, Greek and punctuation, Hangul jamo, result symbols).
RANGES = [(0x0020, 0x00FF), (0x0100, 0x017F), (0x0300, 0x036F), (0x0370, 0x03FF), (0x1D00, 0x1DBF),
          (0x2000, 0x209F), (0x2100, 0x214F), (0x2190, 0x21FF), (0x2200, 0x22FF), (0x3000, 0x303F),
          (0x3131, 0x318F), (0xFFFD, 0xFFFD)]
TEXT_SUFFIXES = (".md", ".cpp", ".h", ".json")


def characters(folders):
    chars = set()
    for lo, hi in RANGES:
        chars.update(range(lo, hi + 1))
    for folder in folders:
        for base, _, files in os.walk(folder):
            for name in files:
                if name.endswith(TEXT_SUFFIXES):
                    with open(os.path.join(base, name), encoding="utf-8", errors="ignore") as f:
                        chars.update(ord(c) for c in f.read() if ord(c) >= 0x20)
    return chars


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--texts", action="append", default=[])
    ap.add_argument("--typed", action="append", default=[])
    ap.add_argument("fonts", nargs="+")
    args = ap.parse_args()
    logging.getLogger("fontTools").setLevel(logging.ERROR)  # tables it drops, by design
    chars = characters(args.texts)
    common_hangul = {c for c in range(0xAC00, 0xD7A4) if len(chr(c).encode("euc_kr", errors="ignore")) == 2}
    typed = {os.path.basename(f) for f in args.typed}
    os.makedirs(args.out, exist_ok=True)
    options = subset.Options()
    options.layout_features = []
    options.hinting = False
    options.desubroutinize = True
    options.name_IDs = [1, 2]  # family and style: what fontTools needs to write a valid font
    options.notdef_outline = True
    for path in args.fonts:
        font = subset.load_font(path, options)
        sub = subset.Subsetter(options)
        sub.populate(unicodes=sorted(chars | common_hangul if os.path.basename(path) in typed else chars))
        sub.subset(font)
        out = os.path.join(args.out, os.path.basename(path))
        subset.save_font(font, out, options)
        print(f"subset-fonts: {os.path.basename(path)} {os.path.getsize(path)} -> {os.path.getsize(out)} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
