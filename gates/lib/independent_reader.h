// The loader gates' independent reader (oracle_bridge/loader_check/independent_reader.py): torch and safetensors,
// in the oracle's python, read the checkpoint the engine's loader read, and what the loader made resident is
// compared with it bit for bit, so a layout defect shared by the loader's F32 and BF16 paths cannot cancel.
// Contract: compare_resident() writes the tensors to SCRATCH/resident.safetensors (BF16; a name "T[a:b]" says the
// tensor holds rows a..b-1 of checkpoint tensor T) and returns "" when every one equals the reader's bf16 of the
// checkpoint, else the reader's report (the mismatched tensors and counts) or why it did not run.
// A resident "P.weight" of a checkpoint that stores P.weight_g / P.weight_v is compared with torch's weight-norm fold
// of the raw pair (independent_reader.py compare).
// f32_copy() writes an F32 copy of a component folder whose values need rounding (independent_reader.py f32-copy),
// bf16_copy() a copy torch rounded to BF16 (bf16-copy, for a loader's BF16 path when the oracle stores F32); both
// throw std::runtime_error naming the command when the reader fails. The python is $MUSIC3_ORACLE_PYTHON, else the
// configured venv's. ScratchDir: a fresh folder under the temporary directory, named for the gate and the process,
// removed with everything in it when it goes out of scope.
// Thread-safety: runs child processes in caller-given folders: thread-safe for distinct folders.
#pragma once
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "engine/core/bf16.h"
#include "engine/core/tensor.h"

namespace music3::gates {

struct ResidentTensor {
  std::string name;
  Shape shape;
  const bf16* data = nullptr;
};

std::string compare_resident(const std::string& checkpoint_dir, const std::vector<ResidentTensor>& resident,
                             const std::string& scratch);
void f32_copy(const std::string& src_dir, const std::string& dst_dir, uint64_t seed);
void bf16_copy(const std::string& src_dir, const std::string& dst_dir);

struct ScratchDir {
  explicit ScratchDir(const std::string& gate);
  ~ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  std::string path(const std::string& child = "") const;
  const std::filesystem::path dir;
};

}  // namespace music3::gates
