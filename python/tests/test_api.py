"""The package's entry points: read (format detection, paths and bytes), write/to_bytes,
convert, errors with their Diagnostic, warnings, the GIL."""
from __future__ import annotations

import os
import pickle
import threading
import time

import pytest

import levelkit
from conftest import corpus_files


def test_read_detects_the_format_from_the_content(demo_vmf, demo_wmp, tmp_path):
    assert isinstance(levelkit.read(demo_vmf), levelkit.VmfDocument)
    assert isinstance(levelkit.read(str(demo_vmf)), levelkit.VmfDocument)
    # content decides, not the name
    renamed = tmp_path / "map.bin"
    renamed.write_bytes(demo_vmf.read_bytes())
    assert levelkit.read(renamed).format == "vmf"
    assert levelkit.detect_format(renamed) == "vmf"
    assert isinstance(levelkit.read(demo_wmp), levelkit.WmpDocument)
    wmp = levelkit.read(demo_wmp, typed=False)
    assert isinstance(wmp, levelkit.Document) and wmp.format == "wmp"
    assert levelkit.read(demo_vmf, typed=False).format == "vmf"


def test_read_bytes_and_write_back_identical(demo_vmf, tmp_path):
    data = demo_vmf.read_bytes()
    for src in (data, bytearray(data), memoryview(data)):
        doc = levelkit.read(src)
        assert doc.name == "<bytes>"
        assert doc.to_bytes() == data
    out = tmp_path / "out.vmf"
    doc.write(out)
    assert out.read_bytes() == data
    # atomic write: no temporaries left next to the output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.vmf"]


def test_generic_document_info_and_convert(demo_wmp):
    doc = levelkit.read(demo_wmp, typed=False)
    info = doc.info()
    assert info["format"] == "wmp"
    assert doc.to_bytes() == demo_wmp.read_bytes()
    vmf = doc.convert("vmf")
    assert vmf.format == "vmf"
    assert levelkit.read(vmf.to_bytes()).stats["entities"] >= 1


def test_info_of_a_file_is_that_of_its_document(demo_vmf, demo_wmp, tmp_path):
    # A VMF is counted without being kept (piece by piece when large); the same dict.
    paths = [demo_vmf, demo_wmp]
    vmfs = corpus_files("vmf", (".vmf",))
    if vmfs:
        paths.append(max(vmfs, key=lambda p: p.stat().st_size))
    for p in paths:
        assert levelkit.info(p) == levelkit.read(p, typed=False).info(), p
        assert levelkit.info(str(p))["format"] in ("vmf", "wmp")
    broken = tmp_path / "broken.vmf"
    broken.write_bytes(b'versioninfo\n{\n\t"editorversion" "400\n')
    with pytest.raises(levelkit.Error) as e:
        levelkit.info(broken)
    assert e.value.line >= 1 and e.value.file == str(broken)
    with pytest.raises(levelkit.Error) as e:
        levelkit.info(tmp_path / "nope.vmf")
    assert e.value.code.startswith("io.")


def test_text_error_carries_line_and_column():
    with pytest.raises(levelkit.Error) as e:
        levelkit.read(b'versioninfo\n{\n\t"editorversion" "400"\n\t"unterminated\n')
    err = e.value
    d = err.diagnostic
    assert isinstance(d, levelkit.Diagnostic)
    assert d.severity == levelkit.Severity.error
    assert d.code.startswith("kv.")
    assert d.line == err.line and d.line >= 4
    assert d.column is not None
    assert d.offset is None or d.offset >= 0
    assert d.code in str(err) or d.message in str(err)


def test_binary_error_carries_byte_offset_and_file(corpus, tmp_path):
    src = min((corpus / "bsp").glob("*.bsp"), key=lambda p: p.stat().st_size)
    cut = tmp_path / "cut.bsp"
    cut.write_bytes(src.read_bytes()[:2000])
    with pytest.raises(levelkit.Error) as e:
        levelkit.read(cut)
    d = e.value.diagnostic
    assert d.code.startswith("bsp.")
    assert d.offset is not None and d.offset >= 0
    assert d.file == str(cut)
    assert d.path  # e.g. lump[40]/filelen


def test_missing_file_and_unknown_format(tmp_path):
    with pytest.raises(levelkit.Error) as e:
        levelkit.read(tmp_path / "nope.vmf")
    assert e.value.code.startswith("io.")
    with pytest.raises(levelkit.Error) as e:
        levelkit.read(b"\x00\x01\x02 definitely not a map")
    assert e.value.code == "usage.unknown-format"
    with pytest.raises(TypeError):
        levelkit.read(12)


def test_error_pickles_with_its_diagnostic():
    try:
        levelkit.read(b'world { "a" ')
    except levelkit.Error as err:
        again = pickle.loads(pickle.dumps(err))
        assert isinstance(again, levelkit.Error)
        assert again.code == err.code and again.line == err.line and str(again) == str(err)
    else:
        pytest.fail("no error")


def test_warnings_are_a_list_on_the_document():
    # Hammer rejects values over 1023 bytes: a warning, not an error.
    text = 'world\n{\n\t"id" "1"\n\t"classname" "worldspawn"\n\t"message" "' + "x" * 2000 + '"\n}\n'
    doc = levelkit.read(text.encode())
    assert doc.warnings, "expected a warning about the long value"
    assert all(isinstance(w, levelkit.Diagnostic) for w in doc.warnings)
    assert doc.warnings[0].severity == levelkit.Severity.warning
    assert doc.warnings[0].line == 5


def test_convert_with_cli_option_names(demo_vmf, tmp_path):
    out = tmp_path / "demo.vmap"
    result = levelkit.convert(demo_vmf, out, texture_size=256)
    assert result["path"] == "vmf -> scene -> vmap"
    assert result["written"][0] == out
    assert isinstance(result["report"], dict)
    vmap = levelkit.read(out)
    assert vmap.format == "vmap"
    # the same options as the CLI, checked against the path's schema
    with pytest.raises(levelkit.Error) as e:
        levelkit.convert(demo_vmf, tmp_path / "x.vmap", no_such_option=1)
    assert e.value.code.startswith("option.")
    assert "texture-size" in e.value.message
    names = [o["name"] for o in levelkit.conversion_options("vmf", "vmap")]
    assert "texture_size" in names
    # refuses to overwrite the input, like the CLI
    copy = tmp_path / "copy.vmf"
    copy.write_bytes(demo_vmf.read_bytes())
    with pytest.raises(levelkit.Error):
        levelkit.convert(copy, copy)
    levelkit.convert(copy, copy, in_place=True)
    assert levelkit.read(copy).format == "vmf"


def test_convert_output_format_override(demo_vmf, tmp_path):
    out = tmp_path / "demo.txt"
    levelkit.convert(demo_vmf, out, to="vmap", encoding="keyvalues2:4")
    assert out.read_bytes().startswith(b"<!-- dmx encoding keyvalues2")


def test_formats_listing():
    names = {f["name"] for f in levelkit.formats()}
    assert {"vmf", "bsp", "dmx", "vmap", "wmp", "wmb", "smd", "obj", "gltf", "png"} <= names


def _main_thread_coverage(work) -> float:
    """Run `work` (a callable) repeatedly on a second thread for at least 0.3 s while this
    thread spins; return the share of 2 ms time slots in which this thread ran at all.

    A call that keeps the GIL shuts this thread out for its whole length, so the share is
    small whatever the machine's speed; a call that releases the GIL leaves it running."""
    stop = threading.Event()
    window = []

    def worker():
        start = time.perf_counter()
        calls = 0
        while calls < 3 or time.perf_counter() - start < 0.3:
            work()
            calls += 1
        window.extend((start, time.perf_counter()))
        stop.set()

    slots = set()
    t = threading.Thread(target=worker)
    t.start()
    while not stop.is_set():
        slots.add(int(time.perf_counter() / 0.002))
        time.sleep(0)
    t.join()
    first, last = int(window[0] / 0.002), int(window[1] / 0.002)
    inside = [s for s in slots if first <= s <= last]
    return len(inside) / max(1, last - first + 1)


def test_gil_is_released_while_parsing(corpus):
    big = max((corpus / "vmf").glob("*.vmf"), key=lambda p: p.stat().st_size)
    data = big.read_bytes()
    numbers = list(range(2_000_000, 0, -1))

    # The control keeps the GIL (list.sort on ints never returns to the interpreter): it shows the
    # measurement can tell the two apart on this machine, loaded or not.
    held = _main_thread_coverage(lambda: sorted(numbers))
    released = _main_thread_coverage(lambda: levelkit.read(data))
    assert held < 0.2, f"control: the main thread ran in {held:.0%} of slots with the GIL held"
    assert released > max(0.4, held + 0.25), (
        f"the main thread ran in only {released:.0%} of slots while levelkit parsed "
        f"(GIL-holding control: {held:.0%}): the GIL is held"
    )
