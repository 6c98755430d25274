# libFuzzer targets under ASan + UBSan. They need clang (scripts/install-deps installs clang and
# libclang-rt-14-dev), so each is compiled by a custom command with clang++ whatever the project's compiler.
# When clang++ cannot link a -fsanitize=fuzzer probe (no clang, or no compiler-rt), no fuzz target is built and
# no bounded run is registered; configure says so once.
#
# music3_fuzz_target(NAME SOURCES src... [LINK lib...] [HEADERS glob...] CORPUS dir... [SECONDS n] [LABELS l...])
# builds bin/NAME from the sources (project root on the include path) and registers NAME_bounded: a run of
# SECONDS (default 45) over the committed seed corpora, writing what it finds to the build tree; a crash, leak,
# timeout or sanitizer report fails it. Labels: cpu;fuzz plus LABELS.
find_program(MUSIC3_CLANGXX NAMES clang++ clang++-14)
set(MUSIC3_FUZZ OFF)
if(MUSIC3_CLANGXX)
  set(_probe ${CMAKE_BINARY_DIR}/fuzz_probe.cpp)
  file(WRITE ${_probe} "#include <cstdint>\n#include <cstddef>\nextern \"C\" int LLVMFuzzerTestOneInput(const uint8_t*, size_t) { return 0; }\n")
  execute_process(COMMAND ${MUSIC3_CLANGXX} -fsanitize=fuzzer,address,undefined ${_probe} -o ${CMAKE_BINARY_DIR}/fuzz_probe
                  RESULT_VARIABLE _probe_status OUTPUT_QUIET ERROR_QUIET)
  if(_probe_status EQUAL 0)
    set(MUSIC3_FUZZ ON)
  endif()
endif()
message(STATUS "music3: libFuzzer targets ${MUSIC3_FUZZ} (clang++: ${MUSIC3_CLANGXX})")

function(music3_fuzz_target name)
  cmake_parse_arguments(F "" "SECONDS" "SOURCES;LINK;HEADERS;CORPUS;LABELS" ${ARGN})
  if(NOT MUSIC3_FUZZ)
    return()
  endif()
  if(NOT F_SECONDS)
    set(F_SECONDS 45)
  endif()
  set(headers)
  foreach(pattern ${F_HEADERS})
    file(GLOB found ${pattern})
    list(APPEND headers ${found})
  endforeach()
  set(exe ${CMAKE_BINARY_DIR}/bin/${name})
  add_custom_command(OUTPUT ${exe}
    COMMAND ${MUSIC3_CLANGXX} -std=c++20 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
            -ffile-prefix-map=${PROJECT_SOURCE_DIR}=. -I${PROJECT_SOURCE_DIR} ${F_SOURCES} ${F_LINK} -o ${exe}
    DEPENDS ${F_SOURCES} ${headers} VERBATIM COMMENT "clang++ libFuzzer target ${name}")
  add_custom_target(${name} ALL DEPENDS ${exe})
  set(work ${CMAKE_CURRENT_BINARY_DIR}/${name})
  file(MAKE_DIRECTORY ${work}/found ${work}/artifacts)
  math(EXPR timeout "${F_SECONDS} + 75")
  add_test(NAME ${name}_bounded
    COMMAND ${CMAKE_COMMAND} -E env UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
            ${exe} -max_total_time=${F_SECONDS} -rss_limit_mb=2048 -timeout=10 -artifact_prefix=${work}/artifacts/
            ${work}/found ${F_CORPUS})
  set_tests_properties(${name}_bounded PROPERTIES LABELS "cpu;fuzz;${F_LABELS}" TIMEOUT ${timeout})
endfunction()
