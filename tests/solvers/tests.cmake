# filled in with the solvers suites
