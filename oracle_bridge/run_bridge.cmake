# Runs the oracle bridge for ctest with the project venv's python; a missing venv FAILS (never skips).
#   cmake -DVENV_PYTHON=<python> -DBRIDGE_DIR=<oracle_bridge> -DOUT_DIR=<dir> -DMODE=<mode> -P run_bridge.cmake
# MODE checkpoints: generate_all.py OUT_DIR --checkpoints-only (checked against the committed manifest).
foreach(var VENV_PYTHON BRIDGE_DIR OUT_DIR MODE)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "run_bridge.cmake: -D${var}=... is required")
  endif()
endforeach()
if(NOT EXISTS "${VENV_PYTHON}")
  message(FATAL_ERROR "oracle bridge: no project venv at ${VENV_PYTHON}. "
    "Run scripts/install-deps from the repository root to create it from oracle_bridge/requirements.txt.")
endif()

function(run_step)
  execute_process(COMMAND "${VENV_PYTHON}" ${ARGN} RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "oracle bridge: '${ARGN}' failed with status ${status}")
  endif()
endfunction()

if(MODE STREQUAL "checkpoints")
  run_step("${BRIDGE_DIR}/generate_all.py" "${OUT_DIR}" --checkpoints-only)
else()
  message(FATAL_ERROR "run_bridge.cmake: MODE must be checkpoints, got '${MODE}'")
endif()
