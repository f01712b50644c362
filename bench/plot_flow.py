#!/usr/bin/env python3
"""A picture (PNG) of a flow written by quilt-flow --vtu DIR: the speed |u| as colour, streamlines
of the velocity over it, and the macro edges, read from DIR/flow.pvtu and its pieces.

Usage: plot_flow.py DIR/flow.pvtu OUT.png [--title TEXT] [--field speed|vorticity|pressure]
                    [--width INCHES]

Reads the format toolkit/io/vtu_writer.hpp writes (raw appended data, UInt64 headers, Float64
points and fields, Int32 connectivity; LittleEndian or BigEndian as the file says), nothing else.
Needs matplotlib and numpy (Debian: python3-matplotlib); draws with the Agg backend.
"""
import argparse
import os
import re
import sys

from plot_python import require_matplotlib

require_matplotlib(__file__, missing_is_error=True)
import numpy as np  # noqa: E402
import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.tri as mtri  # noqa: E402

TYPES = {"Float64": "f8", "Int32": "i4", "Int64": "i8", "UInt8": "u1"}


def read_piece(path):
    """The arrays of one .vtu piece by name (points as 'points')."""
    data = open(path, "rb").read()
    marker = b'<AppendedData encoding="raw">'
    start = data.index(marker)
    header = data[:start].decode()
    base = data.index(b"_", start) + 1
    order = "<" if 'byte_order="LittleEndian"' in header else ">"
    arrays = {}
    for tag in re.findall(r"<DataArray [^>]*/>", header):
        attrs = dict(re.findall(r'(\w+)="([^"]*)"', tag))
        offset = base + int(attrs["offset"])
        size = int(np.frombuffer(data, dtype=order + "u8", count=1, offset=offset)[0])
        values = np.frombuffer(data, dtype=order + TYPES[attrs["type"]],
                               count=size // np.dtype(TYPES[attrs["type"]]).itemsize,
                               offset=offset + 8)
        components = int(attrs.get("NumberOfComponents", "1"))
        if components > 1:
            values = values.reshape(-1, components)
        arrays[attrs.get("Name", "points")] = values
    return arrays


def read_pvtu(path):
    """All pieces of a .pvtu joined: points, quads (indices into points), nodal fields."""
    text = open(path).read()
    folder = os.path.dirname(path)
    points, quads, fields = [], [], {}
    count = 0
    for source in re.findall(r'<Piece Source="([^"]+)"', text):
        piece = read_piece(os.path.join(folder, source))
        p = piece["points"]
        points.append(p[:, :2])
        quads.append(piece["connectivity"].reshape(-1, 4) + count)
        count += len(p)
        for name in ("velocity", "pressure", "vorticity"):
            if name in piece:
                fields.setdefault(name, []).append(piece[name])
    xy = np.vstack(points)
    joined = {k: np.concatenate(v) if v[0].ndim == 1 else np.vstack(v) for k, v in fields.items()}
    # Nodes shared by macros or ranks appear once per macro: merge them (a valid triangulation
    # for the interpolation needs each point once). Their values agree to solver precision.
    scale = max(np.ptp(xy[:, 0]), np.ptp(xy[:, 1]))
    _, first, index = np.unique(np.round(xy / scale * 1e9).astype(np.int64), axis=0,
                                return_index=True, return_inverse=True)
    index = index.reshape(-1)
    return (xy[first], index[np.vstack(quads)], {k: v[first] for k, v in joined.items()})


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("pvtu")
    parser.add_argument("png")
    parser.add_argument("--title", default="")
    parser.add_argument("--field", default="speed", choices=["speed", "vorticity", "pressure"])
    parser.add_argument("--width", type=float, default=7.0)
    args = parser.parse_args()

    xy, quads, fields = read_pvtu(args.pvtu)
    u = fields["velocity"][:, 0]
    v = fields["velocity"][:, 1]
    values = {"speed": np.hypot(u, v), "vorticity": fields.get("vorticity"),
              "pressure": fields.get("pressure")}[args.field]
    triangles = np.vstack([quads[:, [0, 1, 2]], quads[:, [0, 2, 3]]])
    tri = mtri.Triangulation(xy[:, 0], xy[:, 1], triangles)

    x0, x1 = xy[:, 0].min(), xy[:, 0].max()
    y0, y1 = xy[:, 1].min(), xy[:, 1].max()
    aspect = (y1 - y0) / (x1 - x0)
    fig, ax = plt.subplots(figsize=(args.width, args.width * aspect + 0.9))
    if args.field == "vorticity":
        limit = np.percentile(np.abs(values), 98)
        shade = ax.tripcolor(tri, values, shading="gouraud", cmap="RdBu_r", vmin=-limit,
                             vmax=limit)
    else:
        shade = ax.tripcolor(tri, values, shading="gouraud", cmap="viridis")
    fig.colorbar(shade, ax=ax, label=args.field, fraction=0.04, pad=0.02)

    # Streamlines on a regular grid interpolated from the triangulation (masked outside it).
    nx = 240
    ny = max(int(nx * aspect), 40)
    gx, gy = np.meshgrid(np.linspace(x0, x1, nx), np.linspace(y0, y1, ny))
    gu = mtri.LinearTriInterpolator(tri, u)(gx, gy)
    gv = mtri.LinearTriInterpolator(tri, v)(gx, gy)
    ax.streamplot(gx, gy, gu, gv, color="white", linewidth=0.5, density=(2.0, 2.0 * aspect + 0.5),
                  arrowsize=0.5)
    ax.set_aspect("equal")
    ax.set_xlim(x0, x1)
    ax.set_ylim(y0, y1)
    ax.set_title(args.title)
    fig.tight_layout()
    fig.savefig(args.png, dpi=90, bbox_inches="tight")
    print(f"plot_flow.py: wrote {args.png}")


if __name__ == "__main__":
    sys.exit(main())
