"""levelkit: read, write and convert game level and model formats (VMF, BSP, DMX, VMAP, SMD,
Gamestudio WMP/WMB, glTF, OBJ, PNG) from Python.

    import levelkit
    vmf = levelkit.read("map.vmf")          # typed document, format from the content
    for ent in vmf.by_class("light"):
        ent["_light"] = "255 255 255 400"
    vmf.write("map_edited.vmf")             # atomic, like the CLI
    levelkit.convert("map.vmf", "map.vmap", texture_size=512)

Errors raise levelkit.Error (its .diagnostic has code, file, line, column, offset, path);
warnings are a list on the document (doc.warnings), never printed.
"""
from __future__ import annotations

from . import _levelkit
from ._levelkit import (  # noqa: F401  (re-exported API)
    BrushPolygons,
    BspDocument,
    BspEntity,
    Diagnostic,
    DmxDocument,
    DmxElement,
    Document,
    Error,
    Geometry,
    Severity,
    VmfDisplacement,
    VmfDocument,
    VmfEntity,
    VmfOutput,
    VmfSide,
    VmfSolid,
    WmpBlock,
    WmpDocument,
    WmpObject,
    conversion_options,
    detect_format,
    formats,
    geometry,
)

__all__ = [
    "BrushPolygons", "BspDocument", "BspEntity", "Diagnostic", "DmxDocument", "DmxElement",
    "Document", "Error", "Geometry", "Severity", "VmfDisplacement", "VmfDocument", "VmfEntity",
    "VmfOutput", "VmfSide", "VmfSolid", "WmpBlock", "WmpDocument", "WmpObject",
    "conversion_options", "convert", "detect_format",
    "formats", "geometry", "info", "read", "walk",
]

__version__ = "0.1.0"


# Plain Python functions over the native ones, so they pickle by name (Dask, multiprocessing).
def read(source, typed=True):
    """Reads a file (path) or bytes-like object, detecting the format from the content.

    Returns a VmfDocument, BspDocument or DmxDocument (also for VMAPs) when `typed`, else (and
    for every other format) a format-erased Document. Raises levelkit.Error.
    """
    return _levelkit.read(source, typed)


def info(path):
    """What read(path, typed=False).info() gives, without keeping the document.

    The same dict as `levelkit info --json` prints (less "file"); a VMF is counted in 64 KiB
    pieces, each freed once counted, so a large map takes a few hundred KiB. Raises
    levelkit.Error.
    """
    return _levelkit.info(path)


def convert(source, destination, *, to=None, in_place=False, **options):
    """Converts a file along the conversion graph, as `levelkit convert` does.

    The output format comes from the destination's extension unless `to` names one. Options are
    the CLI's with '-' as '_' (--texture-size 512 -> texture_size=512); unknown or mistyped ones
    raise levelkit.Error. The output (and companion files) are written atomically; the input is
    never overwritten unless in_place=True. Returns {"path", "written", "report", "warnings"}.
    """
    return _levelkit.convert(source, destination, to=to, in_place=in_place, **options)


def walk(element, _seen=None):
    """Yields a DMX element and every element reachable from it, depth first, each once."""
    seen = set() if _seen is None else _seen
    stack = [element]
    while stack:
        el = stack.pop()
        if el is None or el in seen:
            continue
        seen.add(el)
        yield el
        children = []
        for _name, value in el.items():
            if isinstance(value, DmxElement):
                children.append(value)
            elif isinstance(value, list):
                children.extend(v for v in value if isinstance(v, DmxElement))
        stack.extend(reversed(children))
