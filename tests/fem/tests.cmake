# filled in with the fem suites
