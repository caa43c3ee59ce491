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

from ._levelkit import (  # noqa: F401  (re-exported API)
    BrushPolygons,
    BspDocument,
    BspEntity,
    Diagnostic,
    DmxDocument,
    DmxElement,
    Document,
    Error,
    Severity,
    VmfDisplacement,
    VmfDocument,
    VmfEntity,
    VmfOutput,
    VmfSide,
    VmfSolid,
    conversion_options,
    convert,
    detect_format,
    formats,
    read,
)

__all__ = [
    "BrushPolygons", "BspDocument", "BspEntity", "Diagnostic", "DmxDocument", "DmxElement",
    "Document", "Error", "Severity", "VmfDisplacement", "VmfDocument", "VmfEntity", "VmfOutput",
    "VmfSide", "VmfSolid", "conversion_options", "convert", "detect_format", "formats", "read",
    "walk",
]

__version__ = "0.1.0"


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
