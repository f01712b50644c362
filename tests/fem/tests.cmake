quilt_serial_test(test_fem fem/test_scalar_operators.cpp)
