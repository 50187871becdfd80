"""Walk one text through `OpenAITokenizer(...).encode` and print every function of the package
it visits, in call order, indented by depth (comprehensions and lambdas left out; a function
called many times in a row is shown once with its count).

    python tools/encode_walk.py [TEXT ...] [--encoding cl100k_base]

The style guide asks for minbpe's shape (the subclass adds, the core does not call back):
read the walk to count the functions, the modules and the trips between a subclass and its
base. Each text is encoded by a fresh tokenizer (an empty cache), then once more (warm); the
construction is walked last. Nothing is timed.
"""

from __future__ import annotations

import argparse
import os
import sys


def walk(call, root: str) -> list[tuple[int, str, str]]:
    """(depth, module path, function name) of every package function `call()` enters."""
    trail: list[tuple[int, str, str]] = []
    depth = 0

    def profile(frame, event, arg):
        nonlocal depth
        code = frame.f_code
        if not code.co_filename.startswith(root) or code.co_name.startswith("<"):
            return
        if event == "call":
            name = getattr(code, "co_qualname", code.co_name)        # 3.11+: Class.method
            trail.append((depth, os.path.relpath(code.co_filename, root), name))
            depth += 1
        elif event == "return":
            depth -= 1

    sys.setprofile(profile)
    try:
        call()
    finally:
        sys.setprofile(None)
    return trail


def show(title: str, trail: list[tuple[int, str, str]]) -> None:
    functions = {(module, name) for _, module, name in trail}
    modules = {module for _, module, _ in trail}
    print(f"\n{title}: {len(functions)} functions in {len(modules)} modules, {len(trail)} calls")
    rows: list[list] = []
    for row in trail:
        if rows and rows[-1][0] == row:
            rows[-1][1] += 1
        else:
            rows.append([row, 1])
    for (depth, module, name), count in rows:
        print(f"  {'  ' * depth}{name}  [{module}]" + (f"  x{count}" if count > 1 else ""))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("texts", nargs="*",
                        default=["hello world", " tokenizers", "a" * 300],
                        help="texts to encode (default: one token, a word of several, a long chunk)")
    parser.add_argument("--encoding", default="cl100k_base")
    args = parser.parse_args()
    import bpe_course
    from bpe_course import OpenAITokenizer
    root = os.path.dirname(bpe_course.__file__)
    OpenAITokenizer(args.encoding)              # load the ranks and modules outside the walk
    for text in args.texts:
        tok = OpenAITokenizer(args.encoding)
        label = repr(text) if len(text) <= 30 else f"{text[:10]!r}... ({len(text)} characters)"
        show(f"encode({label}), a fresh tokenizer", walk(lambda: tok.encode(text), root))
        show(f"encode({label}) again (warm)", walk(lambda: tok.encode(text), root))
    show(f"OpenAITokenizer({args.encoding!r})",
         walk(lambda: OpenAITokenizer(args.encoding), root))


if __name__ == "__main__":
    main()
