# accel benchmark
