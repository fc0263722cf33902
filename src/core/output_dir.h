#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace eco {

// Output folders that a tool owns: staged, swapped in whole, locked, and never replacing
// what the tool did not write. Used by bake, masks, export and ecosample, each with its own
// OutputKind (bake's is bakeOutput() in bake/bake.h).

// Which folders a tool may replace: its own previous output, recognised by a marker it
// writes into every output (a bake's manifest.json, masks.json, ecosample.json).
struct OutputKind {
  std::string previous;  // "ecobake bake": in "is not a previous <previous>"
  std::string writer;    // "ecobake bake": in "another <writer> is writing this folder"
  std::string verb;      // "bake": in "cannot <verb> into the root folder"
  std::string subfolder;  // created in the staging folder ("tiles"), or empty
  // True when the non-empty folder dir is a previous output of this kind; else false, with
  // why saying what is missing.
  std::function<bool(const std::string& dir, std::string* why)> owns;
};

// Owned when dir/markerFile is a JSON object whose "format" is `format` and whose "files"
// array lists, relative to dir, every file the tool wrote there, and the folder holds nothing
// else (holdsOnly: the marker, those files, their folders and `folders`). The marker is read
// only when at most markerLimit bytes (an export's index lists every tile, so it sets a larger
// one). A marker without "files" (an older version's) is not enough: a bare marker beside a
// user's file must not get the file deleted.
OutputKind markedOutput(std::string previous, std::string writer, std::string verb, std::string markerFile,
                        std::string format, uint64_t markerLimit = uint64_t(1) << 16,
                        std::vector<std::string> folders = {});

// True when every entry under dir (not following links) is one of `files` (relative, '/'
// separated; a regular file) or a folder holding one of them or named in `folders`. Else false,
// `why` naming the first other entry. Files listed but absent are fine: only what is there
// would be deleted.
bool holdsOnly(const std::string& dir, const std::vector<std::string>& files, const std::vector<std::string>& folders,
               std::string* why);

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
//   staging folder; a later bake of the same destination removes staging folders that hold
//   that lock file and whose lock it can take (their bake died), never anything else (a
//   user's folder that merely has such a name has no lock file).
// - A symbolic link as destination is followed (its target folder is replaced, the link
//   stays); a dangling one is refused.
// - A previous output holding a mount point (an entry on another file system, or another
//   mount of this one, e.g. a bind mount) is refused: its deletion would reach into it.
// The same rules serve other tools' output folders, with the ownership marker of an
// OutputKind in place of the manifest.

// The checks StagedDir makes before it creates anything, without creating or locking
// anything: a bake calls this before loading its inputs, so an unusable -o fails at once
// rather than after the bake. InputError naming the folder.
void checkOutputFolder(const std::string& destination, const OutputKind& kind);

struct StagedDir {
  std::string destination;  // absolute, symbolic links resolved
  std::string staging;
  bool committed = false;

  // Throws InputError when the destination may not be replaced (see above), when another bake
  // holds it, or when the staging folder cannot be created.
  StagedDir(const std::string& destination, OutputKind kind);
  ~StagedDir();  // removes the staging folder unless committed, releases the locks
  StagedDir(const StagedDir&) = delete;
  StagedDir& operator=(const StagedDir&) = delete;

  // Atomically replaces destination with the staging folder (renameat2 RENAME_EXCHANGE when
  // the destination exists), then deletes the previous bake that the swap moved aside.
  // Checks once more that the destination is still replaceable.
  void commit();

 private:
  OutputKind kind_;
  std::string lockPath_;        // DEST.ecobake-lock
  int lockFd_ = -1;             // flock held on lockPath_
  std::string stagingLockPath_;  // staging/.ecobake-staging-lock, removed before the swap
  int stagingLockFd_ = -1;
  void release();
};

}  // namespace eco
