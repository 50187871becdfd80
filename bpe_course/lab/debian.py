"""Debian packages as a source of text: download one, read its files, find its licence.

A `.deb` is an `ar` archive of three members: `debian-binary`, `control.tar.*`
(the package's name, version, ...) and `data.tar.*` (the files it installs).
`deb_files` reads them in Python with `tarfile`, so nothing is installed and no
root is needed; only the download uses Debian's tools (`apt-get download NAME`,
which any user may run, on Debian or Ubuntu).

Every package says under what terms it may be copied in
`/usr/share/doc/NAME/copyright`; `licences` reads the `License:` fields of that
file's machine-readable form, or names the licences its prose mentions.

>>> licences("Files: *\\nLicense: GPL-2+\\n\\nFiles: doc/*\\nLicense: GFDL-1.3\\n")
['GPL-2+', 'GFDL-1.3']
"""

from __future__ import annotations

import io
import os
import re
import shutil
import subprocess
import tarfile
from pathlib import Path
from typing import Iterator

AR_MAGIC = b"!<arch>\n"


def ar_members(path: str | os.PathLike) -> Iterator[tuple[str, int, int]]:
    """`(name, offset, size)` of each member of an `ar` archive (a `.deb`)."""
    with open(path, "rb") as f:
        if f.read(8) != AR_MAGIC:
            raise ValueError(f"{path} is not a .deb (no ar archive header)")
        while True:
            header = f.read(60)
            if len(header) < 60:
                return
            name = header[:16].decode("ascii").strip().rstrip("/")
            size = int(header[48:58].decode("ascii").strip())
            yield name, f.tell(), size
            f.seek(size + size % 2, io.SEEK_CUR)       # members are padded to an even size


def _member_tar(path, prefix: str) -> tarfile.TarFile:
    for name, offset, size in ar_members(path):
        if name.startswith(prefix):
            if name.endswith(".zst"):       # Ubuntu's newer packages; the standard library has no zstd
                if not shutil.which("dpkg-deb"):
                    raise ValueError(f"{path}: {name} is zstd-compressed; install dpkg to read it")
                which = "--ctrl-tarfile" if prefix == "control" else "--fsys-tarfile"
                data = subprocess.run(["dpkg-deb", which, str(path)], check=True,
                                      capture_output=True).stdout
            else:
                with open(path, "rb") as f:
                    f.seek(offset)
                    data = f.read(size)
            return tarfile.open(fileobj=io.BytesIO(data), mode="r:*")
    raise ValueError(f"{path} has no {prefix}.tar member: not a Debian package")


def deb_files(path: str | os.PathLike) -> Iterator[tuple[str, tarfile.TarFile, tarfile.TarInfo]]:
    """The regular files a `.deb` installs: `(path without "./", its tar, its member)`, in
    the archive's order. Read one with `tar.extractfile(member).read()`."""
    with _member_tar(path, "data.tar") as tar:
        for member in tar:
            if member.isfile():
                yield member.name.removeprefix("./"), tar, member


def control_fields(path: str | os.PathLike) -> dict[str, str]:
    """The fields of a `.deb`'s control file (Package, Version, ...)."""
    with _member_tar(path, "control.tar") as tar:
        for member in tar:
            if member.name.removeprefix("./") == "control":
                text = tar.extractfile(member).read().decode("utf-8")
                return dict(re.findall(r"^([\w-]+):[ \t]*(.*)$", text, flags=re.MULTILINE))
    raise ValueError(f"{path} has no control file")


KNOWN = ["GPL", "LGPL", "AGPL", "GFDL", "BSD", "MIT", "Expat", "Apache", "MPL", "Artistic",
         "CC-BY-SA", "CC-BY", "CC0", "ISC", "PSF", "public domain", "zlib", "OFL"]


def licences(copyright_text: str) -> list[str]:
    """The licences a Debian copyright file names: the short names in its `License:` fields
    (the machine-readable format), else the known licence names its text mentions, in order.

    Subtle: a `License:` field may hold the licence's whole text instead of its name
    (Python's does); a value of more than six words, or with a comma, is not a name.
    """
    found = [value for value in re.findall(r"^License:[ \t]*(\S[^\n]*)$", copyright_text,
                                           flags=re.MULTILINE)
             if len(value.split()) <= 6 and "," not in value]
    if not found:
        found = [name for name in KNOWN if re.search(rf"\b{re.escape(name)}\b", copyright_text)]
    return list(dict.fromkeys(x.strip() for x in found))


def download(names: list[str], folder: Path, versions: dict[str, str] | None = None
             ) -> dict[str, Path]:
    """`apt-get download NAME[=VERSION] ...` into `folder`, in one call (apt starts once);
    the path of each `.deb` it wrote, by package name."""
    if not shutil.which("apt-get"):
        raise RuntimeError("apt-get is not on this machine: the lab's corpus is built from "
                           "Debian packages, on Debian or Ubuntu (the chapter's slice needs none)")
    folder.mkdir(parents=True, exist_ok=True)
    versions = versions or {}
    specs = [f"{n}={versions[n]}" if versions.get(n) else n for n in names]
    done = subprocess.run(["apt-get", "download", *specs], cwd=folder, capture_output=True,
                          text=True)
    if done.returncode:
        raise RuntimeError(f"apt-get download {' '.join(specs)} failed: "
                           f"{done.stderr.strip()[-500:]} (run apt-get update first?)")
    found = {}
    for name in names:
        debs = sorted(folder.glob(f"{name}_*.deb"), key=lambda p: p.stat().st_mtime)
        if not debs:
            raise RuntimeError(f"apt-get download {name} wrote no {name}_*.deb in {folder}")
        found[name] = debs[-1]
    return found
