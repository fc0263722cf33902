// parseBiomeConfig + checkBiomeInputs on arbitrary config text. The config sits in
// <private>/configs/case/ with the images of tests/data/configs beside it in
// <private>/configs/images/, so the seed corpus (copies of those fixtures) resolves its
// "../images/..." paths and the input checks decode real files.
#include <vector>

#include "config/config.h"
#include "core/error.h"
#include "fuzz_support.h"
#include "terrain/png16.h"

namespace {

void writeGray(const std::string& name, int w, int h) {
  std::vector<uint16_t> pixels(size_t(w) * size_t(h));
  for (size_t i = 0; i < pixels.size(); ++i) pixels[i] = uint16_t(i * 977);
  eco::fuzz::writeInput(name, nullptr, 0);  // creates the folder
  eco::writePng16(eco::fuzz::privateDir() + "/" + name, w, h, pixels.data());
}

void writeImages() {
  writeGray("configs/images/height_9x9.png", 9, 9);
  writeGray("configs/images/height_9x7.png", 9, 7);
  writeGray("configs/images/river_5x5.png", 5, 5);
  writeGray("configs/images/river_5x4.png", 5, 4);
  writeGray("configs/images/river_5x6.png", 5, 6);
  const std::string raw(9 * 9 * 2, '\x10');
  eco::fuzz::writeInput("configs/images/height_9x9.r16", reinterpret_cast<const uint8_t*>(raw.data()), raw.size());
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  writeImages();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = eco::fuzz::writeInput("configs/case/config.json", data, size);
  try {
    std::vector<eco::ConfigProblem> problems;
    const eco::BiomeConfig config = eco::parseBiomeConfig(path, problems);
    for (const eco::ConfigProblem& p : problems) (void)eco::formatProblem(path, p);
    if (problems.empty()) eco::checkBiomeInputs(config, problems);
  } catch (const eco::InputError&) {
  }
  return 0;
}
