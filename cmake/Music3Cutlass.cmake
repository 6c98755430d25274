# CUTLASS headers, optional: the cuda.conv1d.cutlass provider (engine/ops/cuda/conv1d_cutlass.cu, CUTLASS's
# implicit-GEMM convolution) is built in CUDA builds when MUSIC3_CUTLASS_INCLUDE holds cutlass/cutlass.h. Its
# default is the include folder of the pip package nvidia-cutlass (pinned in oracle_bridge/requirements.txt:
# cutlass_library/source/include) as MUSIC3_ORACLE_PYTHON or the project venv finds it (the venv's site-packages
# here, the carried wheels' /tmp/site on the GPU box). Sets MUSIC3_WITH_CUTLASS and says in a `music3:` configure
# line whether the provider is built. Without it the other conv1d providers remain.
set(MUSIC3_WITH_CUTLASS OFF)
if(MUSIC3_WITH_CUDA)
  set(_music3_cutlass_default "")
  foreach(_py "${MUSIC3_ORACLE_PYTHON}" "${CMAKE_SOURCE_DIR}/.venv/bin/python")
    if(NOT _music3_cutlass_default AND _py AND EXISTS "${_py}")
      execute_process(COMMAND "${_py}" -c
        "import importlib.util, os; s = importlib.util.find_spec('cutlass_library'); print(os.path.join(list(s.submodule_search_locations)[0], 'source', 'include') if s else '')"
        OUTPUT_VARIABLE _music3_cutlass_default OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    endif()
  endforeach()
  set(MUSIC3_CUTLASS_INCLUDE "${_music3_cutlass_default}" CACHE PATH
    "CUTLASS include folder (cutlass/cutlass.h); default: the nvidia-cutlass wheel's cutlass_library/source/include")
  # A cached value without the headers (configured before the wheel was installed) gives way to the one found now.
  if(NOT EXISTS "${MUSIC3_CUTLASS_INCLUDE}/cutlass/cutlass.h" AND EXISTS "${_music3_cutlass_default}/cutlass/cutlass.h")
    set(MUSIC3_CUTLASS_INCLUDE "${_music3_cutlass_default}" CACHE PATH "CUTLASS include folder (cutlass/cutlass.h)" FORCE)
  endif()
  if(MUSIC3_CUTLASS_INCLUDE AND EXISTS "${MUSIC3_CUTLASS_INCLUDE}/cutlass/cutlass.h")
    set(MUSIC3_WITH_CUTLASS ON)
    message(STATUS "music3: CUTLASS headers found (${MUSIC3_CUTLASS_INCLUDE}): provider cuda.conv1d.cutlass ON")
  else()
    message(STATUS "music3: CUTLASS headers not found (MUSIC3_CUTLASS_INCLUDE '${MUSIC3_CUTLASS_INCLUDE}'; pip package nvidia-cutlass==4.2.0.0): provider cuda.conv1d.cutlass OFF")
  endif()
endif()
