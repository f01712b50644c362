# Sourced by the Poisson benchmarks (issue 13): write_unit_square_2x2 FILE writes the unit square
# as 2x2 macros (MSH 2.2), the peers' 1025^2 grid at L = 9. No shipped mesh has 2x2 macros.
write_unit_square_2x2() {
  cat > "$1" <<'MSH'
$MeshFormat
2.2 0 8
$EndMeshFormat
$PhysicalNames
5
1 1 "bottom"
1 2 "right"
1 3 "top"
1 4 "left"
2 5 "domain"
$EndPhysicalNames
$Nodes
9
1 0.0 0.0 0
2 0.5 0.0 0
3 1.0 0.0 0
4 0.0 0.5 0
5 0.5 0.5 0
6 1.0 0.5 0
7 0.0 1.0 0
8 0.5 1.0 0
9 1.0 1.0 0
$EndNodes
$Elements
12
1 1 2 1 1 1 2
2 1 2 1 1 2 3
3 1 2 2 2 3 6
4 1 2 2 2 6 9
5 1 2 3 3 9 8
6 1 2 3 3 8 7
7 1 2 4 4 7 4
8 1 2 4 4 4 1
9 3 2 5 1 1 2 5 4
10 3 2 5 2 2 3 6 5
11 3 2 5 3 4 5 8 7
12 3 2 5 4 5 6 9 8
$EndElements
MSH
}
