# cuDNN, optional: the cuda.conv1d.cudnn provider (engine/ops/cuda/conv1d_cudnn.cpp) is built when cuDNN 9 is found
# in CUDA builds. Looked for, in order: MUSIC3_CUDNN_ROOT (cache or environment; a folder with include/cudnn.h and
# lib/libcudnn.so*), the pip package nvidia-cudnn-cu13 (torch's dependency) of MUSIC3_ORACLE_PYTHON or the project
# venv, then the system paths. Sets MUSIC3_WITH_CUDNN, MUSIC3_CUDNN_INCLUDE_DIR and MUSIC3_CUDNN_LIBRARY, and says
# in the configure output whether it was found and where. Without it the other conv1d providers remain.
set(MUSIC3_WITH_CUDNN OFF)
if(MUSIC3_WITH_CUDA)
  set(MUSIC3_CUDNN_ROOT "$ENV{MUSIC3_CUDNN_ROOT}" CACHE PATH "cuDNN 9 folder (include/, lib/); empty: the venv's nvidia-cudnn-cu13, then the system")
  set(_music3_cudnn_hints ${MUSIC3_CUDNN_ROOT})
  foreach(_py "${MUSIC3_ORACLE_PYTHON}" "${CMAKE_SOURCE_DIR}/.venv/bin/python")
    if(_py AND EXISTS "${_py}")
      execute_process(COMMAND "${_py}" -c "import nvidia.cudnn, os; print(list(nvidia.cudnn.__path__)[0])"
        OUTPUT_VARIABLE _music3_pip_cudnn OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE _rc)
      if(_rc EQUAL 0 AND _music3_pip_cudnn)
        list(APPEND _music3_cudnn_hints "${_music3_pip_cudnn}")
      endif()
    endif()
  endforeach()
  find_path(MUSIC3_CUDNN_INCLUDE_DIR cudnn_version.h HINTS ${_music3_cudnn_hints} PATH_SUFFIXES include)
  find_library(MUSIC3_CUDNN_LIBRARY NAMES cudnn libcudnn.so.9 NAMES_PER_DIR HINTS ${_music3_cudnn_hints} PATH_SUFFIXES lib lib64)
  if(MUSIC3_CUDNN_INCLUDE_DIR AND MUSIC3_CUDNN_LIBRARY)
    file(STRINGS "${MUSIC3_CUDNN_INCLUDE_DIR}/cudnn_version.h" _music3_cudnn_major REGEX "^#define CUDNN_MAJOR [0-9]+")
    string(REGEX REPLACE "[^0-9]" "" _music3_cudnn_major "${_music3_cudnn_major}")
    if(_music3_cudnn_major GREATER_EQUAL 9)
      set(MUSIC3_WITH_CUDNN ON)
    endif()
  endif()
  if(MUSIC3_WITH_CUDNN)
    message(STATUS "music3: cuDNN ${_music3_cudnn_major} found (${MUSIC3_CUDNN_LIBRARY}, headers ${MUSIC3_CUDNN_INCLUDE_DIR}): provider cuda.conv1d.cudnn ON")
  else()
    message(STATUS "music3: cuDNN 9 not found (MUSIC3_CUDNN_ROOT, the venv's nvidia-cudnn-cu13, the system): provider cuda.conv1d.cudnn OFF, conv1d stays on cuBLAS")
  endif()
endif()
