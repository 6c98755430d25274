# music3_header_folder(VAR MARKER DOC PYTHON [FALLBACK]): the cache path VAR of a header-only pip package's include
# folder (one holding MARKER). Its default is what the Python expression PYTHON prints under MUSIC3_ORACLE_PYTHON, the
# project venv or the python3 on PATH (the first that prints one: on the GPU box, after scripts/gpu-env, that python
# sees the carried wheels, so a configure without MUSIC3_ORACLE_PYTHON still finds them), else FALLBACK when that
# holds MARKER; a cached value without MARKER
# (configured before the wheel was installed) gives way to that default. Used by Music3Cutlass and
# Music3CudnnFrontend.
function(music3_header_folder var marker doc python)
  set(_default "")
  find_program(MUSIC3_PATH_PYTHON3 python3)
  foreach(_py "${MUSIC3_ORACLE_PYTHON}" "${CMAKE_SOURCE_DIR}/.venv/bin/python" "${MUSIC3_PATH_PYTHON3}")
    if(NOT _default AND _py AND EXISTS "${_py}")
      execute_process(COMMAND "${_py}" -c "${python}" OUTPUT_VARIABLE _default OUTPUT_STRIP_TRAILING_WHITESPACE
        ERROR_QUIET)
    endif()
  endforeach()
  if(NOT EXISTS "${_default}/${marker}" AND ARGC GREATER 4 AND EXISTS "${ARGV4}/${marker}")
    set(_default "${ARGV4}")
  endif()
  set(${var} "${_default}" CACHE PATH "${doc}")
  if(NOT EXISTS "${${var}}/${marker}" AND EXISTS "${_default}/${marker}")
    set(${var} "${_default}" CACHE PATH "${doc}" FORCE)
  endif()
endfunction()
