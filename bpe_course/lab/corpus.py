"""The lab's corpus: a gigabyte of real text from Debian's packages, in shards, with a manifest.

Language models are trained on corpora of many gigabytes that nobody in the
room wrote. The lab builds one of its own, offline apart from the package
registry: Debian's documentation in many languages (manual pages, the Debian
handbook and reference, LibreOffice's help, the Linux kernel's, Python's and
PostgreSQL's documentation, Java's API reference) and, to fill it up, the
Linux kernel's source code. `build` (`python -m bpe_course corpus build`):

1. downloads each package of `SOURCES` in order (`debian.download`),
2. turns each of its files into a document of plain text (`extract`),
   dropping very short ones and exact repeats,
3. sends each document to the training or the held-out split by a hash of its
   name (`is_heldout`): the same document always lands on the same side,
   whatever else the corpus holds,
4. writes the documents into text shards of at most `SHARD_BYTES`, each
   followed by `<|endoftext|>` on a line of its own, until the corpus holds
   `size` bytes,
5. writes `manifest.json`: each package's version, licences (from its
   copyright file, kept in `licences/`), the sha256 of its `.deb`, and the
   size, document count and sha256 of every shard.

Running it again verifies every shard against the manifest and reuses them; a
missing or damaged shard rebuilds the corpus from the downloaded packages
(checked by sha256, at the versions the manifest recorded).

`course_slice` writes the course's own texts (`corpora`) in the same form, so
the chapter runs the same code on a few megabytes with no download at all.

>>> is_heldout("manpages:usr/share/man/man1/ls.1.gz", 5), is_heldout("a:b", 1000)
(False, True)
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import re
import tarfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator

from . import debian
from .extract import html_to_text, roff_to_text

EOT = "<|endoftext|>"           # between documents, as in TinyStories and OpenWebText
SHARD_BYTES = 64_000_000        # at most this many bytes of text in one shard
MIN_DOC_BYTES = 200             # shorter documents are redirects and stubs: dropped
HELDOUT_PER_MILLE = 5           # the share of documents held out, in thousandths
FORMAT = 1                      # the manifest's format
FETCH_BATCH = 12                # packages downloaded in one call of apt-get


def lab_cache() -> Path:
    """Where the corpus lives: `$BPE_COURSE_LAB`, else `~/.cache/bpe-course/lab` (or under
    `$XDG_CACHE_HOME`). Never inside the repository: it is a gigabyte."""
    if os.environ.get("BPE_COURSE_LAB"):
        return Path(os.environ["BPE_COURSE_LAB"]).expanduser()
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "bpe-course" / "lab"


def parse_size(text: str) -> int:
    """A size in bytes from `1GB`, `500MB`, `64kB` or a plain number (decimal units).

    >>> parse_size("1GB"), parse_size("2.5 MB"), parse_size("1000")
    (1000000000, 2500000, 1000)
    """
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([kKMGT]?)B?\s*", str(text))
    if not m:
        raise ValueError(f"size {text!r}: give a number of bytes such as 1GB, 300MB or 5000000")
    scale = {"": 1, "k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}[m.group(2)]
    size = int(float(m.group(1)) * scale)
    if size < 1:
        raise ValueError(f"size {text!r}: it must be at least one byte")
    return size


def is_heldout(doc_id: str, per_mille: int) -> bool:
    """Is the document named `doc_id` held out? A hash of its name decides, so the split
    does not depend on the order of documents or on what else the corpus holds."""
    digest = hashlib.sha256(doc_id.encode("utf-8")).digest()
    return int.from_bytes(digest[:4], "big") % 1000 < per_mille


# -- what the corpus is made of ---------------------------------------------------------------

@dataclass(frozen=True)
class Source:
    """One Debian package and how to read it: which files (`include`, a regex on their
    path), and as what (`kind`: "man" pages, "html" pages, plain "text", or "tarball",
    a `.tar.xz` inside the package whose files are plain text)."""
    package: str
    language: str
    kind: str
    include: str
    exclude: str = r"^$"


MAN = r"^usr/share/man/.*\.\d\w*\.gz$"
HTML = r"\.html?$"
SPHINX = r"/_sources/.*\.txt$"
LIBREOFFICE = ["ca", "cs", "da", "de", "dz", "el", "en-gb", "en-us", "es", "et", "eu", "fi",
               "fr", "gl", "hi", "hu", "id", "it", "ja", "km", "ko", "nl", "om", "pl", "pt",
               "pt-br", "ru", "sl", "sv", "tr", "vi", "zh-cn", "zh-tw"]
MANPAGES = ["cs", "da", "de", "el", "es", "fi", "fr", "hu", "id", "it", "ja", "mk", "nb", "nl",
            "pl", "pt-br", "ro", "ru", "sr", "sv", "tr", "uk", "vi", "zh"]
REFERENCE = ["de", "en", "es", "fr", "id", "it", "ja", "pt", "pt-br", "zh-cn", "zh-tw"]
KERNEL_CODE = r"\.(?:c|h|S|rs|py|sh|pl|awk|dts|dtsi|y|l)$|/(?:Kconfig|Makefile)[^/]*$"

SOURCES: list[Source] = (
    [Source("manpages", "en", "man", MAN), Source("manpages-dev", "en", "man", MAN)]
    + [Source(f"manpages-{lang}", lang, "man", MAN) for lang in MANPAGES]
    + [Source(f"debian-reference-{lang}", lang, "html", HTML) for lang in REFERENCE]
    + [Source("debian-handbook", "26 languages", "html", r"/html/.*\.html$")]
    + [Source(f"libreoffice-help-{lang}", lang, "html", HTML) for lang in LIBREOFFICE]
    + [Source("linux-doc-6.1", "en", "text", SPHINX),
       Source("python3.11-doc", "en", "text", SPHINX),
       Source("postgresql-doc-15", "en", "html", HTML),
       Source("openjdk-17-doc", "en", "html", HTML),
       # Last, to fill the corpus up to its size: the kernel's code (C, assembly,
       # build files), without Documentation/, which linux-doc already gave.
       Source("linux-source-6.1", "code", "tarball", r"^usr/src/linux-source-.*\.tar\.xz$")]
)


def documents(source: Source, deb: Path) -> Iterator[tuple[str, str]]:
    """`(name, text)` of each document in one package: one per file that `source` includes."""
    include, exclude = re.compile(source.include), re.compile(source.exclude)
    for path, tar, member in debian.deb_files(deb):
        if not include.search(path) or exclude.search(path):
            continue
        if source.kind == "tarball":
            yield from tarball_documents(source.package, tar.extractfile(member))
            continue
        data = tar.extractfile(member).read()
        if path.endswith(".gz"):
            data = gzip.decompress(data)
        try:
            raw = data.decode("utf-8")
        except UnicodeDecodeError:
            continue                        # a legacy encoding: left out rather than guessed
        text = {"man": roff_to_text, "html": html_to_text}.get(source.kind, str.strip)(raw)
        yield f"{source.package}:{path}", text


def tarball_documents(package: str, fileobj) -> Iterator[tuple[str, str]]:
    """The text files of a source tarball (read as a stream), as documents."""
    code = re.compile(KERNEL_CODE)
    with tarfile.open(fileobj=fileobj, mode="r|xz") as inner:
        for member in inner:
            if not member.isfile() or "/Documentation/" in member.name \
                    or not code.search(member.name):
                continue
            try:
                text = inner.extractfile(member).read().decode("utf-8")
            except UnicodeDecodeError:
                continue
            yield f"{package}:{member.name}", text.strip()


# -- writing shards ---------------------------------------------------------------------------

class ShardWriter:
    """Documents into `train-NNNNN.txt` and `heldout-NNNNN.txt` shards, each document
    followed by a line holding only `EOT`; exact repeats and short documents dropped."""

    def __init__(self, folder: Path, per_mille: int, shard_bytes: int = SHARD_BYTES):
        self.folder, self.per_mille, self.shard_bytes = folder, per_mille, shard_bytes
        self.shards: list[dict] = []
        self.open: dict[str, tuple] = {}      # split -> (file, hasher, entry)
        self.seen: set[bytes] = set()         # digests of the documents written
        self.total = 0

    def add(self, doc_id: str, text: str) -> int:
        """Write one document; return the bytes it added (0: dropped)."""
        text = text.replace(EOT, "<endoftext>")
        data = (text + "\n" + EOT + "\n").encode("utf-8")
        digest = hashlib.sha256(data).digest()[:16]
        if len(data) < MIN_DOC_BYTES or digest in self.seen:
            return 0
        self.seen.add(digest)
        split = "heldout" if is_heldout(doc_id, self.per_mille) else "train"
        if split in self.open and self.open[split][2]["bytes"] + len(data) > self.shard_bytes:
            self.close_shard(split)
        if split not in self.open:
            number = sum(s["split"] == split for s in self.shards)
            entry = {"file": f"{split}-{number:05d}.txt", "split": split, "bytes": 0,
                     "documents": 0}
            self.open[split] = (open(self.folder / entry["file"], "wb"), hashlib.sha256(), entry)
        f, hasher, entry = self.open[split]
        f.write(data)
        hasher.update(data)
        entry["bytes"] += len(data)
        entry["documents"] += 1
        self.total += len(data)
        return len(data)

    def close_shard(self, split: str) -> None:
        f, hasher, entry = self.open.pop(split)
        f.close()
        entry["sha256"] = hasher.hexdigest()
        self.shards.append(entry)

    def close(self) -> list[dict]:
        for split in list(self.open):
            self.close_shard(split)
        return sorted(self.shards, key=lambda s: s["file"])


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def verify(folder: str | os.PathLike) -> list[str]:
    """What is wrong with the corpus in `folder`: one sentence per missing or damaged
    shard, or about the manifest (an empty list: every shard has its recorded sha256)."""
    folder = Path(folder)
    try:
        manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        return [f"no readable manifest.json in {folder} ({e})"]
    if manifest.get("format") != FORMAT:
        return [f"{folder}/manifest.json has format {manifest.get('format')}, not {FORMAT}"]
    problems = []
    for shard in manifest["shards"]:
        path = folder / shard["file"]
        if not path.is_file():
            problems.append(f"{shard['file']} is missing")
        elif path.stat().st_size != shard["bytes"] or sha256_file(path) != shard["sha256"]:
            problems.append(f"{shard['file']} is damaged: its size or sha256 is not the "
                            f"manifest's")
    return problems


# -- building ---------------------------------------------------------------------------------

def build(folder: str | os.PathLike | None = None, size: int = 1_000_000_000,
          log: Callable[[str], None] = lambda line: None, *,
          sources: list[Source] | None = None,
          fetch: Callable[..., dict[str, Path]] = debian.download) -> "Corpus":
    """Build the corpus of `size` bytes in `folder` (default `lab_cache()`), or verify and
    reuse the one already there. `log` receives a line per step; `fetch(names, folder,
    versions)` downloads packages, `debian.download` (tests pass one that makes them)."""
    folder = Path(folder) if folder is not None else lab_cache()
    folder.mkdir(parents=True, exist_ok=True)
    manifest_path = folder / "manifest.json"
    old = None
    if manifest_path.is_file():
        old = json.loads(manifest_path.read_text(encoding="utf-8"))
        problems = verify(folder)
        if not problems and old.get("target_bytes") == size:
            log(f"{folder}: {len(old['shards'])} shards verified by sha256; reusing them")
            refresh_licences(folder, old)
            return Corpus(folder)
        log("rebuilding: " + ("; ".join(problems) if problems else
                              f"the size asked for is {size:,} bytes, not "
                              f"{old.get('target_bytes'):,}"))
        manifest_path.unlink()
    recorded = {p["package"]: p for p in (old or {}).get("packages", [])}
    for stale in folder.glob("*-[0-9][0-9][0-9][0-9][0-9].txt"):
        stale.unlink()
    (folder / "licences").mkdir(exist_ok=True)
    writer = ShardWriter(folder, HELDOUT_PER_MILLE)
    packages = []
    sources = SOURCES if sources is None else sources
    debs: dict[str, Path] = {}
    for k, source in enumerate(sources):
        if writer.total >= size:
            break
        if source.package not in debs:       # the next few packages, in one download
            batch = [s.package for s in sources[k:k + FETCH_BATCH]]
            debs.update(cached_debs(batch, folder / "debs", recorded, fetch, log))
        deb = debs[source.package]
        fields = debian.control_fields(deb)
        entry = {"package": source.package, "version": fields.get("Version", "?"),
                 "language": source.language, "kind": source.kind, "deb": deb.name,
                 "deb_bytes": deb.stat().st_size, "deb_sha256": sha256_file(deb),
                 "licences": [], "documents": 0, "bytes": 0}
        for path, tar, member in debian.deb_files(deb):
            if path == f"usr/share/doc/{source.package}/copyright":
                text = tar.extractfile(member).read()
                (folder / "licences" / f"{source.package}.copyright").write_bytes(text)
                entry["licences"] = debian.licences(text.decode("utf-8", "replace"))
                entry["copyright_sha256"] = hashlib.sha256(text).hexdigest()
                break
        for doc_id, text in documents(source, deb):
            added = writer.add(doc_id, text)
            entry["documents"] += added > 0
            entry["bytes"] += added
            if writer.total >= size:
                break
        packages.append(entry)
        log(f"{source.package} {entry['version']}: {entry['documents']:,} documents, "
            f"{entry['bytes'] / 1e6:.1f} MB (corpus: {writer.total / 1e6:.1f} MB)")
    shards = writer.close()
    manifest = {
        "format": FORMAT,
        "made_by": "python -m bpe_course corpus build",
        "target_bytes": size,
        "separator": EOT,
        "heldout_per_mille": HELDOUT_PER_MILLE,
        "bytes": {split: sum(s["bytes"] for s in shards if s["split"] == split)
                  for split in ("train", "heldout")},
        "packages": packages,
        "shards": shards,
    }
    if writer.total < size:
        log(f"note: every source together gave {writer.total:,} bytes, less than {size:,}")
    manifest_path.write_text(json.dumps(manifest, indent=1, ensure_ascii=False) + "\n",
                             encoding="utf-8")
    return Corpus(folder)


def refresh_licences(folder: Path, manifest: dict) -> None:
    """Read the licences again from the copyright files kept in `licences/` (those whose
    sha256 the manifest recorded), so a better reading reaches a corpus already built."""
    changed = False
    for entry in manifest["packages"]:
        path = folder / "licences" / f"{entry['package']}.copyright"
        if path.is_file() and sha256_file(path) == entry.get("copyright_sha256"):
            names = debian.licences(path.read_bytes().decode("utf-8", "replace"))
            changed |= names != entry["licences"]
            entry["licences"] = names
    if changed:
        (folder / "manifest.json").write_text(json.dumps(manifest, indent=1, ensure_ascii=False)
                                              + "\n", encoding="utf-8")


def cached_debs(names: list[str], folder: Path, recorded: dict[str, dict], fetch, log
                ) -> dict[str, Path]:
    """Each package's `.deb`: the one already downloaded if its sha256 is the one the
    manifest recorded (or no manifest recorded one), else a fresh download, at the
    manifest's version when there is one."""
    found, missing = {}, []
    for name in names:
        for deb in sorted(folder.glob(f"{name}_*.deb")):
            if name not in recorded or sha256_file(deb) == recorded[name]["deb_sha256"]:
                found[name] = deb
                break
            log(f"{deb.name}: its sha256 is not the manifest's; downloading it again")
            deb.unlink()
        else:
            missing.append(name)
    if missing:
        fetched = fetch(missing, folder, {n: recorded[n]["version"] for n in missing
                                          if n in recorded})
        for name, deb in fetched.items():
            if name in recorded and sha256_file(deb) != recorded[name]["deb_sha256"]:
                log(f"note: {deb.name} is not the package the manifest recorded")
        found.update(fetched)
    return found


# -- the course's own texts, in the same form -------------------------------------------------

SLICE_CODE_BYTES = 3_000_000
SLICE_DOC_CHARS = 4000
SLICE_HELDOUT_PER_MILLE = 50
SLICE_SHARD_BYTES = 500_000


def course_slice(folder: str | os.PathLike) -> "Corpus":
    """The chapter's default corpus: the course's prose and 3 MB of its Python code
    (`corpora`, shipped with the package and checked by sha256), cut into documents of
    about 4,000 characters at blank lines, written as shards with a manifest like the
    full corpus's (5% held out, since the slice is small; shards of 0.5 MB, so that
    the slice has several). Needs no network."""
    from .. import corpora
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    writer = ShardWriter(folder, SLICE_HELDOUT_PER_MILLE, SLICE_SHARD_BYTES)
    packages = []
    for name, text in [("prose", corpora.prose()),
                       ("python_code", corpora.python_code(SLICE_CODE_BYTES))]:
        entry = {"package": f"bpe_course.corpora.{name}", "version": "bpe-course",
                 "language": "en" if name == "prose" else "code", "kind": "text",
                 "licences": [corpora.MANIFEST[name]["licence"]],
                 "source": corpora.MANIFEST[name]["source"], "documents": 0, "bytes": 0}
        for k, doc in enumerate(paragraph_documents(text, SLICE_DOC_CHARS)):
            added = writer.add(f"course:{name}:{k}", doc)
            entry["documents"] += added > 0
            entry["bytes"] += added
        packages.append(entry)
    shards = writer.close()
    manifest = {"format": FORMAT, "made_by": "bpe_course.lab.corpus.course_slice",
                "target_bytes": writer.total, "separator": EOT,
                "heldout_per_mille": SLICE_HELDOUT_PER_MILLE,
                "bytes": {split: sum(s["bytes"] for s in shards if s["split"] == split)
                          for split in ("train", "heldout")},
                "packages": packages, "shards": shards}
    (folder / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n",
                                          encoding="utf-8")
    return Corpus(folder)


def paragraph_documents(text: str, chars: int) -> Iterator[str]:
    """`text` in pieces of at least `chars` characters, cut only at blank lines.

    >>> list(paragraph_documents("a\\n\\nb\\n\\nccc\\n\\nd", 4))
    ['a\\n\\nb', 'ccc', 'd']
    """
    piece: list[str] = []
    length = 0
    for paragraph in text.split("\n\n"):
        piece.append(paragraph)
        length += len(paragraph) + 2
        if length >= chars:
            yield "\n\n".join(piece)
            piece, length = [], 0
    if piece:
        yield "\n\n".join(piece)


# -- reading a corpus -------------------------------------------------------------------------

class Corpus:
    """A corpus folder: `manifest.json` and its shards. `Corpus(folder)` checks that every
    shard is there with its recorded size (`verify` checks the sha256 too)."""

    def __init__(self, folder: str | os.PathLike):
        self.folder = Path(folder)
        path = self.folder / "manifest.json"
        if not path.is_file():
            raise FileNotFoundError(f"no corpus in {self.folder} (no manifest.json): build it "
                                    f"with `python -m bpe_course corpus build`")
        self.manifest = json.loads(path.read_text(encoding="utf-8"))
        for shard in self.manifest["shards"]:
            p = self.folder / shard["file"]
            if not p.is_file() or p.stat().st_size != shard["bytes"]:
                raise ValueError(f"{p} is missing or not the size its manifest records; "
                                 "run `python -m bpe_course corpus build` again to rebuild it")

    def shards(self, split: str = "train") -> list[Path]:
        """The shard files of one split, "train" or "heldout", in order."""
        if split not in ("train", "heldout"):
            raise ValueError(f"split must be 'train' or 'heldout', not {split!r}")
        return [self.folder / s["file"] for s in self.manifest["shards"] if s["split"] == split]

    def bytes(self, split: str = "train") -> int:
        return self.manifest["bytes"][split]

    def documents(self, split: str = "heldout") -> Iterator[str]:
        """The documents of one split, read shard by shard, without their separators."""
        sep = "\n" + EOT + "\n"
        for path in self.shards(split):
            text = path.read_text(encoding="utf-8")
            yield from text[:-len(sep)].split(sep) if text else ()

    def sample(self, split: str = "train", max_bytes: int = 30_000_000) -> list[str]:
        """About `max_bytes` of a split's documents, spread over all of it: every k-th
        document, with k the split's size over `max_bytes` (1 when it is smaller)."""
        k = max(1, -(-self.bytes(split) // max_bytes))
        return [doc for i, doc in enumerate(self.documents(split)) if i % k == 0]

    def sources(self) -> list[dict]:
        """One row per package: name, version, language, licences, documents, megabytes."""
        return [{"package": p["package"], "version": p["version"], "language": p["language"],
                 "licences": ", ".join(p["licences"]) or "see licences/",
                 "documents": p["documents"], "MB": round(p["bytes"] / 1e6, 2)}
                for p in self.manifest["packages"]]
