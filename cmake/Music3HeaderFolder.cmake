# music3_header_folder(VAR MARKER DOC PYTHON [FALLBACK]): the cache path VAR of a header-only pip package's include
# folder (one holding MARKER). Its default is what the Python expression PYTHON prints under MUSIC3_ORACLE_PYTHON or
# the project venv (the first that prints one), else FALLBACK when that holds MARKER; a cached value without MARKER
# (configured before the wheel was installed) gives way to that default. Used by Music3Cutlass and
# Music3CudnnFrontend.
function(music3_header_folder var marker doc python)
  set(_default "")
  foreach(_py "${MUSIC3_ORACLE_PYTHON}" "${CMAKE_SOURCE_DIR}/.venv/bin/python")
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
