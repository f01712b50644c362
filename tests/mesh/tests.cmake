# filled in with the mesh suites
