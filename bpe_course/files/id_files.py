"""A text file of any size to token ids on disk, as training pipelines read them.

`encode_file` streams a UTF-8 file through `tok.encode_iterable` (see
`streaming`), so memory stays bounded whatever the file's size, and writes
the ids either as a `.npy` array (uint16 when every id fits, else uint32:
what a training loop memory-maps) or as text, 32 ids a line. The `.npy`
header is written first with a count of 0 and rewritten once the count is
known. This is `python -m bpe_course encode --input FILE --output OUT`.

The output is whole or absent: an error while reading or writing, or Ctrl-C
(KeyboardInterrupt, exit status 130 as shells report SIGINT), removes the
partial file, whose header would otherwise claim 0 ids.
"""

from __future__ import annotations

import array
import sys
from pathlib import Path

from ..training.counting import ProgressBar

READ_CHARS = 1 << 16            # characters read from the input at a time
IDS_PER_WRITE = 8192            # ids buffered before each write


def npy_header(dtype: str, count: int) -> bytes:
    """A .npy (version 1.0) header for `count` values of `dtype`, always 128 bytes long,
    so that it can be written first with a guess and rewritten once the count is known."""
    text = f"{{'descr': '{dtype}', 'fortran_order': False, 'shape': ({count},), }}"
    return b"\x93NUMPY\x01\x00" + (118).to_bytes(2, "little") + text.ljust(117).encode() + b"\n"


def id_writer(out, binary: str | None):
    """A function writing a list of ids to `out`: raw little-endian values or text lines."""
    if binary is None:
        def write(ids):
            for k in range(0, len(ids), 32):
                out.write((" ".join(map(str, ids[k:k + 32])) + "\n").encode("ascii"))
        return write

    def write(ids):
        values = array.array(binary, ids)
        if sys.byteorder == "big":
            values.byteswap()
        out.write(values.tobytes())
    return write


class ReadError(Exception):
    """An error reading or decoding the input, told apart from an error writing the output."""


def problem(error: Exception, source: Path, target: Path) -> str:
    """The one line naming the flag at fault: --input for reading or decoding, else --output."""
    cause = error.args[0] if isinstance(error, ReadError) else error
    if isinstance(cause, UnicodeDecodeError):
        return f"--input {source}: not UTF-8 text ({cause})"
    if isinstance(error, ReadError):
        return f"--input {source}: cannot read it ({getattr(cause, 'strerror', None) or cause})"
    if isinstance(error, OSError):
        return f"--output {target}: cannot write it ({error.strerror or error})"
    return f"--input {source}: {error}"


def encode_file(tok, source: Path, target: Path) -> int:
    """Stream `source` through `tok.encode_iterable` into `target`; special tokens allowed.

    Returns the exit status: 0; 2 for an error, in one line on stderr naming --input or
    --output; 130 when interrupted. Only a regular file this call opened is ever removed.
    """
    if not hasattr(tok, "encode_iterable"):
        print("error: streaming needs a split pattern, and this model has none "
              "(a BasicTokenizer encodes the whole text at once)", file=sys.stderr)
        return 2
    npy = target.suffix == ".npy"
    small = max(tok.vocab) < 1 << 16
    dtype, code = ("<u2", "H") if small else ("<u4", "I")
    count, out = 0, None
    try:
        try:
            size = source.stat().st_size
            f = open(source, encoding="utf-8", newline="")
        except OSError as e:
            raise ReadError(e) from e
        with f, open(target, "wb") as out, \
                ProgressBar(total=size, unit="B", unit_scale=True, desc="encoding",
                            disable=not sys.stderr.isatty()) as bar:
            def pieces():
                while True:
                    try:
                        piece = f.read(READ_CHARS)
                    except (OSError, ValueError) as e:  # UnicodeDecodeError is a ValueError
                        raise ReadError(e) from e
                    if not piece:
                        return
                    bar.update(len(piece.encode("utf-8", "surrogatepass")))
                    yield piece
            if npy:
                out.write(npy_header(dtype, 0))
            write, batch = id_writer(out, code if npy else None), []
            for idx in tok.encode_iterable(pieces(), allowed_special="all"):
                batch.append(idx)
                if len(batch) == IDS_PER_WRITE:
                    write(batch)
                    count += len(batch)
                    batch = []
            write(batch)
            count += len(batch)
            if npy:
                out.seek(0)
                out.write(npy_header(dtype, count))
    except (KeyboardInterrupt, ReadError, OSError, ValueError) as e:
        if out is not None and target.is_file():    # opened by this call; never /dev/null
            target.unlink(missing_ok=True)
        if isinstance(e, KeyboardInterrupt):
            print(f"interrupted: nothing written to {target}", file=sys.stderr)
            return 130
        print(f"error: {problem(e, source, target)}", file=sys.stderr)
        return 2
    kind = ("uint16" if small else "uint32") + " .npy" if npy else "text"
    print(f"encoded {source} ({size / 1e6:.2f} MB) into {count:,} tokens "
          f"({size / max(count, 1):.2f} bytes per token); wrote {target} ({kind})")
    return 0
