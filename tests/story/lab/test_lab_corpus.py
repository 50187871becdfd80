"""The lab's corpus: Debian packages read in Python, shards, manifest, split, reuse.

No test here touches the network: the packages are `.deb` files made by the test
(an `ar` archive of `debian-binary`, `control.tar.gz` and `data.tar.xz`), handed
to `corpus.build` through its `fetch` argument in place of `apt-get download`.
"""

import gzip
import hashlib
import io
import json
import tarfile

import pytest

from bpe_course import cli
from bpe_course.lab import corpus, debian
from bpe_course.lab.corpus import EOT, Corpus, Source, build, course_slice, is_heldout, verify

COPYRIGHT = (b"Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n\n"
             b"Files: *\nCopyright: 2024 Someone\nLicense: GPL-2+\n\n"
             b"Files: po/*\nLicense: GPL-2+\n\nFiles: doc/*\nLicense: GFDL-NIV-1.3\n")


def tar_bytes(files: dict[str, bytes], mode: str) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode=mode) as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def make_deb(path, package: str, version: str, files: dict[str, bytes]) -> None:
    """A real .deb: the ar archive dpkg reads, with a control file and the data files."""
    control = f"Package: {package}\nVersion: {version}\nArchitecture: all\n".encode()
    members = [("debian-binary", b"2.0\n"),
               ("control.tar.gz", tar_bytes({"./control": control}, "w:gz")),
               ("data.tar.xz", tar_bytes({f"./{k}": v for k, v in files.items()}, "w:xz"))]
    out = bytearray(b"!<arch>\n")
    for name, data in members:
        out += f"{name + '/':<16}{0:<12}{0:<6}{0:<6}{100644:<8}{len(data):<10}`\n".encode()
        out += data + (b"\n" if len(data) % 2 else b"")
    path.write_bytes(bytes(out))


def man(title: str, body: str) -> bytes:
    return gzip.compress(f".TH {title} 1\n.SH NAME\n{body}\n".encode())


def page(body: str) -> bytes:
    return f"<html><head><title>x</title></head><body><p>{body}</p></body></html>".encode()


LONG = "word " * 60        # every document must be at least MIN_DOC_BYTES long
PACKAGES = {
    "man-en": ("1.0", {"usr/share/man/man1/a.1.gz": man("A", "a \\- first " + LONG),
                       "usr/share/man/man1/b.1.gz": man("B", "b \\- second " + LONG),
                       "usr/share/man/man1/short.1.gz": man("S", "tiny"),
                       "usr/share/man/man1/copy.1.gz": man("A", "a \\- first " + LONG),
                       "usr/share/doc/man-en/copyright": COPYRIGHT}),
    "help-de": ("2:7.4-1", {f"usr/share/help/de/p{k}.html": page(f"Seite {k} " + LONG)
                            for k in range(40)}
                | {"usr/share/help/de/style.css": b"p { color: red }",
                   "usr/share/doc/help-de/copyright": b"Licensed under the MPL-2.0 or LGPL.\n"}),
    "notes": ("3", {"usr/share/doc/notes/a.txt": f"special {EOT} inside {LONG}".encode(),
                    "usr/share/doc/notes/copyright": COPYRIGHT}),
}
SOURCES = [Source("man-en", "en", "man", corpus.MAN),
           Source("help-de", "de", "html", corpus.HTML),
           Source("notes", "en", "text", r"\.txt$")]


class FakeApt:
    """`fetch` for `build`: writes the made packages, and remembers what it was asked."""

    def __init__(self, tmp_path):
        self.calls = []
        self.store = tmp_path / "mirror"
        self.store.mkdir()
        for name, (version, files) in PACKAGES.items():
            make_deb(self.store / f"{name}_{version.replace(':', '%3a')}_all.deb", name,
                     version, files)

    def __call__(self, names, folder, versions):
        self.calls.append((list(names), dict(versions)))
        folder.mkdir(parents=True, exist_ok=True)
        found = {}
        for name in names:
            src = next(self.store.glob(f"{name}_*.deb"))
            (folder / src.name).write_bytes(src.read_bytes())
            found[name] = folder / src.name
        return found


@pytest.fixture
def apt(tmp_path):
    return FakeApt(tmp_path)


def shard_digests(folder):
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.glob("*-0*.txt"))}


# -- reading packages -------------------------------------------------------------------------

def test_a_deb_is_read_in_python_files_control_and_licences(apt):
    deb = next(apt.store.glob("man-en_*.deb"))
    assert [name for name, _, _ in debian.ar_members(deb)] == [
        "debian-binary", "control.tar.gz", "data.tar.xz"]
    files = {path: tar.extractfile(m).read() for path, tar, m in debian.deb_files(deb)}
    assert files["usr/share/doc/man-en/copyright"] == COPYRIGHT
    assert debian.control_fields(deb)["Version"] == "1.0"
    assert debian.licences(COPYRIGHT.decode()) == ["GPL-2+", "GFDL-NIV-1.3"]


def test_licences_without_license_fields_are_found_in_the_prose():
    assert debian.licences("Licensed under the MPL-2.0 or LGPL.") == ["LGPL", "MPL"]
    assert debian.licences("All rights reserved.") == []


def test_a_file_that_is_not_a_deb_is_refused(tmp_path):
    bad = tmp_path / "x.deb"
    bad.write_bytes(b"PK\x03\x04 a zip file")
    with pytest.raises(ValueError, match="not a .deb"):
        list(debian.deb_files(bad))


# -- building ---------------------------------------------------------------------------------

def test_build_writes_shards_and_a_manifest_of_sources_licences_and_hashes(tmp_path, apt):
    built = build(tmp_path / "lab", 10**9, sources=SOURCES, fetch=apt)
    m = built.manifest
    packages = {p["package"]: p for p in m["packages"]}
    assert list(packages) == ["man-en", "help-de", "notes"]
    assert packages["help-de"]["version"] == "2:7.4-1"
    assert packages["man-en"]["licences"] == ["GPL-2+", "GFDL-NIV-1.3"]
    assert packages["help-de"]["licences"] == ["LGPL", "MPL"]
    deb = tmp_path / "lab" / "debs" / packages["notes"]["deb"]
    assert packages["notes"]["deb_sha256"] == hashlib.sha256(deb.read_bytes()).hexdigest()
    assert (tmp_path / "lab" / "licences" / "man-en.copyright").read_bytes() == COPYRIGHT
    for shard in m["shards"]:
        data = (tmp_path / "lab" / shard["file"]).read_bytes()
        assert shard["sha256"] == hashlib.sha256(data).hexdigest()
        assert shard["bytes"] == len(data) and data.count(f"\n{EOT}\n".encode()) == shard["documents"]
    assert m["bytes"]["train"] + m["bytes"]["heldout"] == sum(p["bytes"] for p in m["packages"])
    assert json.loads((tmp_path / "lab" / "manifest.json").read_text()) == m


def test_short_documents_and_exact_repeats_are_dropped_and_markup_removed(tmp_path, apt):
    built = build(tmp_path / "lab", 10**9, sources=SOURCES, fetch=apt)
    assert {p["package"]: p["documents"] for p in built.manifest["packages"]} == {
        "man-en": 2, "help-de": 40, "notes": 1}
    docs = list(built.documents("train")) + list(built.documents("heldout"))
    assert len(docs) == 43
    assert not any("<p>" in d or ".TH" in d or "color: red" in d for d in docs)
    assert any(d.startswith("A(1)\n\nNAME\na - first word") for d in docs)


def test_the_separator_never_appears_inside_a_document(tmp_path, apt):
    built = build(tmp_path / "lab", 10**9, sources=SOURCES, fetch=apt)
    notes = [d for d in list(built.documents("train")) + list(built.documents("heldout"))
             if d.startswith("special")]
    assert notes == [f"special <endoftext> inside {LONG}".strip()]


def test_the_size_stops_the_corpus_at_a_document(tmp_path, apt):
    built = build(tmp_path / "lab", 1000, sources=SOURCES, fetch=apt)
    total = built.bytes("train") + built.bytes("heldout")
    assert 1000 <= total < 1000 + 600
    assert [p["package"] for p in built.manifest["packages"]] == ["man-en", "help-de"]


def test_running_again_verifies_and_reuses_everything(tmp_path, apt):
    build(tmp_path / "lab", 10**9, sources=SOURCES, fetch=apt)
    before = shard_digests(tmp_path / "lab")
    lines = []
    build(tmp_path / "lab", 10**9, sources=SOURCES, fetch=apt, log=lines.append)
    assert len(apt.calls) == 1 and "verified by sha256; reusing" in lines[0]
    assert shard_digests(tmp_path / "lab") == before


def test_a_damaged_shard_is_found_and_rebuilt_the_same_from_the_cached_packages(tmp_path, apt):
    folder = tmp_path / "lab"
    build(folder, 10**9, sources=SOURCES, fetch=apt)
    before = shard_digests(folder)
    shard = folder / "train-00000.txt"
    shard.write_bytes(shard.read_bytes().replace(b"word", b"WORD", 1))
    assert verify(folder) == ["train-00000.txt is damaged: its size or sha256 is not the "
                              "manifest's"]
    build(folder, 10**9, sources=SOURCES, fetch=apt)
    assert shard_digests(folder) == before and verify(folder) == []
    assert len(apt.calls) == 1                              # the packages were reused


def test_a_package_that_changed_is_downloaded_again_at_the_recorded_version(tmp_path, apt):
    folder = tmp_path / "lab"
    build(folder, 10**9, sources=SOURCES, fetch=apt)
    deb = next((folder / "debs").glob("notes_*.deb"))
    deb.write_bytes(deb.read_bytes() + b"\n")              # not the package the manifest saw
    (folder / "train-00000.txt").unlink()
    assert verify(folder) == ["train-00000.txt is missing"]
    build(folder, 10**9, sources=SOURCES, fetch=apt)
    assert apt.calls[-1] == (["notes"], {"notes": "3"})
    assert verify(folder) == []


def test_the_held_out_split_depends_only_on_each_document(tmp_path, apt):
    one = build(tmp_path / "one", 10**9, sources=SOURCES, fetch=apt)
    two = build(tmp_path / "two", 10**9, sources=SOURCES[1:], fetch=apt)
    german = lambda c: [d for d in c.documents("heldout") if d.startswith("Seite")]  # noqa: E731
    assert german(one) == german(two)
    names = [f"doc{k}" for k in range(4000)]
    held = sum(is_heldout(n, corpus.HELDOUT_PER_MILLE) for n in names)
    assert 0 < held < 4000 * corpus.HELDOUT_PER_MILLE / 1000 * 2
    assert [is_heldout(n, 50) for n in names] == [is_heldout(n, 50) for n in names]


def test_a_missing_corpus_says_how_to_build_it(tmp_path):
    with pytest.raises(FileNotFoundError, match="python -m bpe_course corpus build"):
        Corpus(tmp_path)
    assert "no readable manifest.json" in verify(tmp_path)[0]


# -- the course's slice -----------------------------------------------------------------------

def test_the_course_slice_is_the_same_every_time_and_reads_back_whole(tmp_path):
    a, b = course_slice(tmp_path / "a"), course_slice(tmp_path / "b")
    assert [s["sha256"] for s in a.manifest["shards"]] == [s["sha256"] for s in b.manifest["shards"]]
    assert verify(tmp_path / "a") == []
    docs = list(a.documents("train"))
    assert len(docs) == sum(s["documents"] for s in a.manifest["shards"] if s["split"] == "train")
    assert 0 < a.bytes("heldout") < a.bytes("train") / 10
    assert len(a.shards("train")) > 2
    with pytest.raises(ValueError, match="'train' or 'heldout'"):
        a.shards("test")


def test_a_sample_spreads_over_the_split(tmp_path):
    c = course_slice(tmp_path)
    docs = list(c.documents("train"))
    sample = c.sample("train", -(-c.bytes("train") // 4))       # every 4th document
    assert sample == docs[::4]
    assert c.sample("train", 10**12) == docs


# -- the command ------------------------------------------------------------------------------

def test_corpus_command_rejects_a_bad_size_in_one_line(tmp_path, capsys):
    assert cli.main(["corpus", "build", "--size", "lots", "--cache", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: --size") and err.count("\n") == 1


def test_corpus_verify_passes_a_whole_corpus_and_fails_a_damaged_one(tmp_path, capsys):
    course_slice(tmp_path)
    assert cli.main(["corpus", "verify", "--cache", str(tmp_path)]) == 0
    assert "every shard matches" in capsys.readouterr().out
    (tmp_path / "heldout-00000.txt").write_text("x")
    assert cli.main(["corpus", "verify", "--cache", str(tmp_path)]) == 2
    assert "heldout-00000.txt is damaged" in capsys.readouterr().err


def test_sizes_are_read_in_decimal_units():
    assert corpus.parse_size("1GB") == 10**9
    assert corpus.parse_size("300MB") == 3 * 10**8
    with pytest.raises(ValueError, match="1GB"):
        corpus.parse_size("-5")


def test_a_license_field_holding_the_licence_text_is_not_a_name():
    text = ("License: PSF-2\n\nLicense: Redistribution and use in source and binary forms, "
            "with or without\n\nLicense: Permission to use, copy, modify, and distribute\n")
    assert debian.licences(text) == ["PSF-2"]
    assert debian.licences("License:\n The PSF License Agreement ...") == ["PSF"]


def test_running_again_reads_the_licences_again_from_the_kept_copyright_files(tmp_path, apt):
    folder = tmp_path / "lab"
    build(folder, 10**9, sources=SOURCES, fetch=apt)
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest["packages"][0]["licences"] = ["an older reading"]
    (folder / "manifest.json").write_text(json.dumps(manifest))
    again = build(folder, 10**9, sources=SOURCES, fetch=apt)
    assert again.manifest["packages"][0]["licences"] == ["GPL-2+", "GFDL-NIV-1.3"]


def test_a_source_tarball_inside_a_package_gives_its_code_files(tmp_path):
    inner = tar_bytes({"linux/kernel/fork.c": f"int fork(void) {{ {LONG} }}".encode(),
                       "linux/Documentation/x.c": b"/* the docs package has these */",
                       "linux/drivers/latin1.c": "/* caf\u00e9 */".encode("latin-1"),
                       "linux/scripts/logo.png": b"\x89PNG",
                       "linux/arch/Kconfig": f"config X {LONG}".encode()}, "w:xz")
    make_deb(tmp_path / "src.deb", "linux-source", "6.1", {"usr/src/linux.tar.xz": inner})
    source = Source("linux-source", "code", "tarball", r"^usr/src/linux.*\.tar\.xz$")
    docs = dict(corpus.documents(source, tmp_path / "src.deb"))
    assert list(docs) == ["linux-source:linux/kernel/fork.c", "linux-source:linux/arch/Kconfig"]
    assert docs["linux-source:linux/kernel/fork.c"].startswith("int fork(void)")
