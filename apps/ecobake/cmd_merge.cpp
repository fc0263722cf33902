#include <spdlog/spdlog.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "bake/bake.h"
#include "commands.h"

namespace eco::cli {

namespace {

struct MergeArgs {
  std::vector<std::string> parts;
  std::string outDir;
  bool link = false;
  bool quiet = false;
};

void runMerge(const MergeArgs& a) {
  if (a.quiet) spdlog::set_level(spdlog::level::warn);
  const std::vector<std::string> parts = findPartFolders(a.parts);
  MergeOptions options;
  options.outDir = a.outDir;
  options.link = a.link;
  options.progress = progressReporter(a.quiet, "merged");
  const MergeSummary s = mergeParts(parts, options);
  if (a.quiet) return;
  std::printf("%d parts: %llu instances in %d tiles, %.1f MB, %.2f s%s\n", s.parts,
              static_cast<unsigned long long>(s.instances), s.tiles, double(s.bytes) / 1e6, s.seconds,
              !a.link ? "" : s.linked == s.files ? " (all files hard-linked)" : " (some files copied: another file system)");
  std::printf("output: %s\n", a.outDir.c_str());
}

}  // namespace

void addMerge(CLI::App& app) {
  auto a = std::make_shared<MergeArgs>();
  CLI::App* cmd = app.add_subcommand(
      "merge", "Merge the parts of a sharded bake (bake --shard I/N) into one bake, the same bytes as a bake in one process");
  cmd->add_option("PART", a->parts, "Part folders, or folders holding part folders (one level)")->required();
  cmd->add_option("-o,--output", a->outDir, "Output folder: new, empty or a previous bake, which is replaced atomically")
      ->required();
  cmd->add_flag("--link", a->link,
                "Hard-link the parts' files instead of copying them (same file system; sizes checked, not checksums)");
  cmd->add_flag("-q,--quiet", a->quiet, "Print only warnings and errors");
  cmd->callback([a] { runMerge(*a); });
}

}  // namespace eco::cli
