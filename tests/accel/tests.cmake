# filled in with the accel suites
