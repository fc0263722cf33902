#pragma once
#include <string>

namespace eco {

// A bake is written into a staging folder beside its destination and swapped in at the end,
// so readers never see a half-written bake and an interrupted one leaves the old intact.
struct StagedDir {
  std::string destination;
  std::string staging;
  bool committed = false;

  // Throws InputError when destination exists and is neither empty nor a previous bake
  // (has manifest.json): a typo must not wipe an unrelated folder.
  explicit StagedDir(const std::string& destination);
  ~StagedDir();  // removes the staging folder unless committed
  StagedDir(const StagedDir&) = delete;
  StagedDir& operator=(const StagedDir&) = delete;

  // Atomically replaces destination with the staging folder (renameat2 RENAME_EXCHANGE when
  // the destination exists), then deletes the old bake.
  void commit();
};

}  // namespace eco
