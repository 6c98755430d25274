# The window loop's gates: the scheduler and the teacher-forced loop read what the `acoustic_loop_oracle` fixture
# regenerates (oracle_bridge/acoustic_loop/); the noise and window-rule gates need no oracle.
add_library(music3_acoustic_loop_gate_lib STATIC ${CMAKE_CURRENT_LIST_DIR}/loop_oracle.cpp
  ${CMAKE_CURRENT_LIST_DIR}/loop_replay_arms.cpp)
target_link_libraries(music3_acoustic_loop_gate_lib PUBLIC music3_acoustic_loop music3_io music3_gate_lib)
target_compile_definitions(music3_acoustic_loop_gate_lib PRIVATE
  MUSIC3_DEFAULT_ACOUSTIC_LOOP_ORACLE_DIR="${CMAKE_BINARY_DIR}/acoustic_loop_oracle")

foreach(gate loop scheduler)
  set(exe gate_acoustic_${gate})
  add_executable(${exe} ${CMAKE_CURRENT_LIST_DIR}/${gate}_gate.cpp)
  target_link_libraries(${exe} PRIVATE music3_acoustic_loop_gate_lib)
  add_test(NAME ${exe} COMMAND ${exe})
  set_tests_properties(${exe} PROPERTIES LABELS "gate;acoustic;oracle;cpu" TIMEOUT 600
    FIXTURES_REQUIRED acoustic_loop_oracle)
endforeach()
foreach(gate loop_noise loop_rules)
  set(exe gate_acoustic_${gate})
  add_executable(${exe} ${CMAKE_CURRENT_LIST_DIR}/${gate}_gate.cpp)
  target_link_libraries(${exe} PRIVATE music3_acoustic_loop_gate_lib)
  add_test(NAME ${exe} COMMAND ${exe})
  set_tests_properties(${exe} PROPERTIES LABELS "gate;acoustic;cpu" TIMEOUT 120)
endforeach()
