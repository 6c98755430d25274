# music3_add_gtest(NAME SOURCES... LIBS ... LABELS ...)
# One GoogleTest executable registered as one ctest test. Exit code 77 means
# "skipped" (a GPU test on a machine with no GPU) and is never counted as a pass.
function(music3_add_gtest name)
  cmake_parse_arguments(T "" "TIMEOUT" "SOURCES;LIBS;LABELS;ARGS" ${ARGN})
  add_executable(${name} ${T_SOURCES})
  target_link_libraries(${name} PRIVATE ${T_LIBS} GTest::gtest)
  add_test(NAME ${name} COMMAND ${name} ${T_ARGS})
  set(timeout 600)
  if(T_TIMEOUT)
    set(timeout ${T_TIMEOUT})
  endif()
  set_tests_properties(${name} PROPERTIES LABELS "${T_LABELS}" SKIP_RETURN_CODE 77 TIMEOUT ${timeout}
    ENVIRONMENT "MUSIC3_SOURCE_DIR=${CMAKE_SOURCE_DIR}")
endfunction()
