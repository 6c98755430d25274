# cudnn-frontend headers, optional: the cuda.self_attention.cudnn provider (engine/ops/cuda/self_attention_cudnn.cpp,
# cuDNN's fused SDPA graph) is built in cuDNN builds (cmake/Music3Cudnn.cmake) when MUSIC3_CUDNN_FRONTEND_INCLUDE
# holds cudnn_frontend.h. Its default is the include/ folder the pip package nvidia-cudnn-frontend (pinned in
# scripts/build-requirements.txt, installed without dependencies; the wheel's top-level include/ lands beside its
# packages: the venv's site-packages here, the carried wheels' /tmp/site on the GPU box) installs, as
# MUSIC3_ORACLE_PYTHON or the project venv finds it, else .carry/cudnn_frontend/include (scripts/gpu-sdpa-probe
# fetch). Sets MUSIC3_WITH_CUDNN_FRONTEND and says in a `music3:` configure line whether the provider is built.
# Without it the op stays on cuda.self_attention.
set(MUSIC3_WITH_CUDNN_FRONTEND OFF)
if(MUSIC3_WITH_CUDA)
  include(${CMAKE_CURRENT_LIST_DIR}/Music3HeaderFolder.cmake)
  music3_header_folder(MUSIC3_CUDNN_FRONTEND_INCLUDE cudnn_frontend.h
    "cudnn-frontend include folder (cudnn_frontend.h); default: the nvidia-cudnn-frontend wheel's include/"
    "import importlib.metadata as m; print(m.distribution('nvidia-cudnn-frontend').locate_file('include'))"
    "${CMAKE_SOURCE_DIR}/.carry/cudnn_frontend/include")
  if(MUSIC3_WITH_CUDNN AND EXISTS "${MUSIC3_CUDNN_FRONTEND_INCLUDE}/cudnn_frontend.h")
    set(MUSIC3_WITH_CUDNN_FRONTEND ON)
    message(STATUS "music3: cudnn-frontend headers found (${MUSIC3_CUDNN_FRONTEND_INCLUDE}) with cuDNN: provider cuda.self_attention.cudnn ON")
  elseif(NOT MUSIC3_WITH_CUDNN)
    message(STATUS "music3: no cuDNN 9: provider cuda.self_attention.cudnn OFF, self_attention stays on cuda.self_attention")
  else()
    message(STATUS "music3: cudnn-frontend headers not found (MUSIC3_CUDNN_FRONTEND_INCLUDE '${MUSIC3_CUDNN_FRONTEND_INCLUDE}'; pip package nvidia-cudnn-frontend==1.32.0): provider cuda.self_attention.cudnn OFF, self_attention stays on cuda.self_attention")
  endif()
endif()
