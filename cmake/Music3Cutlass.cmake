# CUTLASS headers, optional: the cuda.conv1d.cutlass provider (engine/ops/cuda/conv1d_cutlass.cu, CUTLASS's
# implicit-GEMM convolution) is built in CUDA builds when MUSIC3_CUTLASS_INCLUDE holds cutlass/cutlass.h. Its
# default is the include folder of the pip package nvidia-cutlass (pinned in oracle_bridge/requirements.txt:
# cutlass_library/source/include) as MUSIC3_ORACLE_PYTHON or the project venv finds it (the venv's site-packages
# here, the carried wheels' /tmp/site on the GPU box). Sets MUSIC3_WITH_CUTLASS and says in a `music3:` configure
# line whether the provider is built. Without it the other conv1d providers remain.
set(MUSIC3_WITH_CUTLASS OFF)
if(MUSIC3_WITH_CUDA)
  include(${CMAKE_CURRENT_LIST_DIR}/Music3HeaderFolder.cmake)
  music3_header_folder(MUSIC3_CUTLASS_INCLUDE cutlass/cutlass.h
    "CUTLASS include folder (cutlass/cutlass.h); default: the nvidia-cutlass wheel's cutlass_library/source/include"
    "import importlib.util, os; s = importlib.util.find_spec('cutlass_library'); print(os.path.join(list(s.submodule_search_locations)[0], 'source', 'include') if s else '')")
  if(MUSIC3_CUTLASS_INCLUDE AND EXISTS "${MUSIC3_CUTLASS_INCLUDE}/cutlass/cutlass.h")
    set(MUSIC3_WITH_CUTLASS ON)
    message(STATUS "music3: CUTLASS headers found (${MUSIC3_CUTLASS_INCLUDE}): provider cuda.conv1d.cutlass ON")
  else()
    message(STATUS "music3: CUTLASS headers not found (MUSIC3_CUTLASS_INCLUDE '${MUSIC3_CUTLASS_INCLUDE}'; pip package nvidia-cutlass==4.2.0.0): provider cuda.conv1d.cutlass OFF")
  endif()
endif()
