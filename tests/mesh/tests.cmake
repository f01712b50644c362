# Coarse mesh layer: MSH reader and validation, topology, charts and refinement, partitioning.
quilt_serial_test(test_mesh mesh/test_msh_reader.cpp mesh/test_msh4_reader.cpp
                  mesh/test_topology.cpp mesh/test_refinement.cpp mesh/test_partition.cpp
                  mesh/test_dfg_channel.cpp)
