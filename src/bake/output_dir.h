#pragma once
#include <string>

namespace eco {

// The output folder of a bake, and the rules for touching it:
// - A destination may be replaced only when it does not exist, is an empty folder, or holds a
//   manifest.json carrying the ecobake format marker (any format_version): anything else is
//   someone's data and gets InputError, with nothing created or deleted.
// - One bake at a time per destination: an flock on DEST.ecobake-lock beside it (the folder
//   itself is swapped, so it cannot carry the lock). A second bake fails at once. The file
//   is removed when the bake ends; one left by a killed bake is harmless and reused.
// - The bake is written into DEST.ecobake-staging-<random> beside the destination, swapped in
//   at the end (renameat2 RENAME_EXCHANGE), so readers never see a half-written bake and an
//   interrupted one leaves the old intact. Each live bake holds an flock on a file inside its
//   staging folder; a later bake of the same destination removes staging folders whose lock
//   it can take (their bake died), never anything else.
// - A symbolic link as destination is followed (its target folder is replaced, the link
//   stays); a dangling one is refused.

// The checks StagedDir makes before it creates anything, without creating or locking
// anything: a bake calls this before loading its inputs, so an unusable -o fails at once
// rather than after the bake. InputError naming the folder.
void checkOutputFolder(const std::string& destination);

struct StagedDir {
  std::string destination;  // absolute, symbolic links resolved
  std::string staging;
  bool committed = false;

  // Throws InputError when the destination may not be replaced (see above), when another bake
  // holds it, or when the staging folder cannot be created.
  explicit StagedDir(const std::string& destination);
  ~StagedDir();  // removes the staging folder unless committed, releases the locks
  StagedDir(const StagedDir&) = delete;
  StagedDir& operator=(const StagedDir&) = delete;

  // Atomically replaces destination with the staging folder (renameat2 RENAME_EXCHANGE when
  // the destination exists), then deletes the previous bake that the swap moved aside.
  // Checks once more that the destination is still replaceable.
  void commit();

 private:
  std::string lockPath_;        // DEST.ecobake-lock
  int lockFd_ = -1;             // flock held on lockPath_
  std::string stagingLockPath_;  // staging/.ecobake-staging-lock, removed before the swap
  int stagingLockFd_ = -1;
  void release();
};

}  // namespace eco
