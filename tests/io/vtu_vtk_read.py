"""Reads a .pvtu with VTK's own XML reader (the one ParaView uses) and prints its counts and the
ranges of its point arrays as vtu_check prints them, so that test_vtu_apps.sh can compare the two
readers value for value. Optional: test_vtu_apps.sh runs it only where VTK's Python module is."""
import sys

from vtkmodules.vtkIOXML import vtkXMLPUnstructuredGridReader


def main(path):
    reader = vtkXMLPUnstructuredGridReader()
    reader.SetFileName(path)
    reader.Update()
    grid = reader.GetOutput()
    if grid.GetNumberOfCells() == 0 or reader.GetErrorCode() != 0:
        sys.exit(f"VTK could not read '{path}'")
    cells = grid.GetCellData()
    for name in ("rank", "macro"):
        if cells.GetArray(name) is None:
            sys.exit(f"'{path}': VTK finds no cell array '{name}'")
    print(f"{grid.GetNumberOfPoints()} points, {grid.GetNumberOfCells()} cells")
    points = grid.GetPointData()
    for i in range(points.GetNumberOfArrays()):
        a = points.GetArray(i)
        ranges = [a.GetRange(k) for k in range(a.GetNumberOfComponents())]
        low, high = min(r[0] for r in ranges), max(r[1] for r in ranges)
        print(f"  {a.GetName()} ({a.GetNumberOfComponents()}): [{low:.17g}, {high:.17g}]")


if __name__ == "__main__":
    main(sys.argv[1])
