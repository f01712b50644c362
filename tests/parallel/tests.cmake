# filled in with the parallel suites
