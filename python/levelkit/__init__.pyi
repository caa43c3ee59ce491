from typing import Iterator

from ._levelkit import (
    BrushPolygons as BrushPolygons,
    BspDocument as BspDocument,
    BspEntity as BspEntity,
    Diagnostic as Diagnostic,
    DmxDocument as DmxDocument,
    DmxElement as DmxElement,
    Document as Document,
    Error as Error,
    Geometry as Geometry,
    Severity as Severity,
    VmfDisplacement as VmfDisplacement,
    VmfDocument as VmfDocument,
    VmfEntity as VmfEntity,
    VmfOutput as VmfOutput,
    VmfSide as VmfSide,
    VmfSolid as VmfSolid,
    WmpBlock as WmpBlock,
    WmpDocument as WmpDocument,
    WmpObject as WmpObject,
    conversion_options as conversion_options,
    convert as convert,
    detect_format as detect_format,
    formats as formats,
    geometry as geometry,
    info as info,
    read as read,
)

__version__: str

def walk(element: DmxElement) -> Iterator[DmxElement]: ...
