#!/usr/bin/python3
"""Writes the fuzz targets' seed corpora (tests/fuzz/corpus/<target>/) from the real
lessons and a small checkpoint. Rerun after the lessons change (from the repository
root; needs a native build and /usr/bin/python3 with python3-torch for the checkpoint
writer of tests/golden/make_golden.py):
    /usr/bin/python3 tests/fuzz/make_corpus.py build/bin/icl
Seeds written here are named seed-*; hand-written seeds (hand-*) and regression inputs
(crash-*: what a fuzzer found, kept after the fix) are left alone. The lesson sources themselves are read as seeds by
tests/fuzz/run.sh directly, so they are not copied.
"""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "golden"))


def corpus(target):
    d = os.path.join(HERE, "corpus", target)
    os.makedirs(d, exist_ok=True)
    for name in os.listdir(d):
        if name.startswith("seed-"):
            os.remove(os.path.join(d, name))
    return d


def write(d, name, data):
    with open(os.path.join(d, "seed-" + name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


def right_answer(check):
    g = check["grading"]
    t = check["type"]
    if t in ("choice", "multi", "truefalse"):
        return g["answer"], None
    if t == "numeric":
        return str(g["answer"]), None
    if t == "text":
        return g["accepted"][0], None
    key, (lo, hi) = next(iter(g["ranges"].items()))
    value = (lo if lo is not None else (hi - 1 if hi is not None else 0)) if hi is None or lo is None else (lo + hi) / 2
    result = {"demo": g["demo"], "progress": 1, "done": True, "error": "",
              "panels": [{"kind": "scalars", "title": "", "items": [{"name": g["scalar"], "value": value}]}]}
    return key, result


def lesson_seeds(icl):
    out = tempfile.mkdtemp()
    subprocess.run([icl, "lessons", "build", "--dir", os.path.join(ROOT, "lessons"), "--out", out],
                   check=True, stdout=subprocess.DEVNULL)
    lessons = []
    for lang in ("en", "ko"):
        for name in sorted(os.listdir(os.path.join(out, lang))):
            with open(os.path.join(out, lang, name)) as f:
                lessons.append(json.load(f))
    return lessons


def main():
    icl = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "bin", "icl")
    lessons = lesson_seeds(icl)
    grade, params, worker = corpus("fuzz_grade"), corpus("fuzz_params"), corpus("fuzz_worker_json")
    seen_demo = set()
    for lesson in lessons:
        tag = f'{lesson["lang"]}-{lesson["id"]}'
        for b in lesson["blocks"]:
            if b["kind"] == "check":
                answer, result = right_answer(b)
                write(grade, f'{tag}-{b["id"]}', json.dumps([b, answer, result], ensure_ascii=False))
                if lesson["lang"] == "en":
                    write(worker, f'grade-{lesson["id"]}-{b["id"]}',
                          "grade\t%s\t%s\t%s\n" % (json.dumps(b), json.dumps(answer), json.dumps(result)))
            elif b["kind"] == "demo" and lesson["lang"] == "en":
                kvs = [f"{k}={str(v).lower() if isinstance(v, bool) else v}" for k, v in b["params"].items()]
                write(params, f'{lesson["id"]}-{b["name"]}', "\n".join([b["demo"]] + kvs))
                if b["demo"] not in seen_demo:
                    seen_demo.add(b["demo"])
                    write(worker, f'run-{b["demo"]}',
                          "parse_params\t%s\t%s\nstart\t%s\t%s\ten\t1\nstep\t1\t2\tfalse\nstep\t1\t2\ndrop\t1\n"
                          % (b["demo"], json.dumps(kvs), b["demo"], json.dumps(b["params"])))
    write(worker, "demos", "demos\tko\ndemos\tfr\nversion\n")

    # Small checkpoints from the independent writer of tests/golden/make_golden.py:
    # every layer kind, with and without MLP.
    import torch
    from make_golden import make_params, write_checkpoint
    ckpt = corpus("fuzz_checkpoint")
    configs = {
        "mixed": dict(vocab=5, context=4, width=4, layers=3, heads=2, mlp_ratio=1, attention_only=False,
                      attention=[(0, 0, 0), (1, 2, 0), (2, 0, 2)]),
        "attn-only": dict(vocab=3, context=3, width=2, layers=1, heads=1, mlp_ratio=1, attention_only=True,
                          attention=[(0, 0, 0)]),
    }
    for name, cfg in configs.items():
        gen = torch.Generator().manual_seed(1)
        path = os.path.join(ckpt, "seed-" + name + ".icl")
        write_checkpoint(path, cfg, make_params(cfg, gen))
    print("corpora written under", os.path.join(HERE, "corpus"))


if __name__ == "__main__":
    main()
