#pragma once
// Terrain inputs: heightmaps and river distance fields loaded into metres, bilinear sampling,
// and derived fields (normal, slope, aspect, sun exposure). See core/types.h for the frame.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/types.h"

namespace eco {

// One channel of an image file, as loaded. PNG values are normalized to [0, 1]
// (value / 255 or value / 65535); EXR and raw r32f keep their float values; raw r16 is
// normalized like a 16-bit PNG.
// GeoTIFF metadata (TIFF files only; every other format leaves it empty). Read from the tags
// directly: ModelPixelScale (33550) or a ModelTransformation (34264) without rotation, the
// GeoKeyDirectory (34735: ProjectedCSTypeGeoKey 3072, GeographicTypeGeoKey 2048,
// GTModelTypeGeoKey 1024) and GDAL_NODATA (42113). No reprojection is done.
struct GeoInfo {
  bool hasPixelScale = false;
  double pixelScaleX = 0, pixelScaleY = 0;  // map units per pixel (metres, or degrees if geographic)
  int epsg = 0;             // the CRS code; 0 when the file names none (or a user-defined one)
  bool geographic = false;  // the model is geographic: the pixel scale is in degrees
  bool hasNoData = false;
  double noData = 0;        // the GDAL_NODATA value, in the file's units (may be NaN)
  std::string crs() const { return epsg > 0 ? "EPSG:" + std::to_string(epsg) : std::string(); }
};

struct Image {
  Image() = default;
  Image(Grid grid, int bits) : pixels(std::move(grid)), bitsPerChannel(bits) {}
  Grid pixels;
  int bitsPerChannel = 0;  // 8, 16 (normalized integers) or 32 (float: EXR, half included, and r32f)
  // The samples are in the file's own units, not normalized: float (TIFF, EXR, r32f) and
  // signed 16-bit TIFF. A heightmap of these is metres when the config gives no height mapping.
  bool metres = false;
  GeoInfo geo;
  // Per pixel 1 where the file holds its nodata value (those pixels carry the smallest valid
  // value instead, so every pixel is finite); empty when no pixel is nodata.
  std::vector<uint8_t> noData;
};

// Which channel of an image to read: kSingleChannel requires an image with exactly one;
// 0..3 pick R, G, B or A of a multi-channel PNG or TIFF (in a gray or gray + alpha image R, G
// and B all name the gray, A the alpha).
constexpr int kSingleChannel = -1;

enum class RawFormat { R16, R32F };

struct ImageInfo {
  int width = 0;
  int height = 0;
  int channels = 0;
  int bitsPerChannel = 0;
};

// Limits on every input image, checked from its header before anything the size of the image
// is allocated: at most kMaxImageSide pixels per side and kMaxImagePixels in all (16384 x
// 16384, a 1 GiB float grid). A PNG must inflate to exactly the size its header gives, and a
// PNG or EXR file may not be larger than imageFileLimit of its header.
constexpr int64_t kMaxImageSide = 32768;
constexpr int64_t kMaxImagePixels = int64_t(1) << 28;

// The type of an input file, from its name's extension, case-insensitive (.png .exr .r16
// .r32f .tif .tiff). The one rule used by the config parser, validate and loadWorld.
enum class InputFormat { Unknown, Png, Exr, R16, R32F, Tiff };
InputFormat inputFormatOf(const std::string& path);
// ".png", ".exr", ".r16", ".r32f", ".tif" ("" for Unknown).
const char* inputFormatExtension(InputFormat format);
inline bool isRawFormat(InputFormat format) { return format == InputFormat::R16 || format == InputFormat::R32F; }

// Reads the header only (PNG, EXR, TIFF; for .r16/.r32f use probeRaw). Identifies the format
// by its signature, not the extension. Cheap: reads at most the first few MiB of the file
// (a TIFF whose directory lies beyond them is read whole, up to kMaxTiffFileBytes).
// Throws InputError on anything loadImage would reject short of decoding errors and NaN/Inf.
ImageInfo probeImage(const std::string& path, int channel = kSingleChannel);
// Checks a raw file's size against width * height samples without reading it.
ImageInfo probeRaw(const std::string& path, RawFormat format, int width, int height);
// Single-channel PNG (8 or 16 bit gray, interlaced or not), EXR (exactly one channel, no
// NaN/Inf) or TIFF (8/16-bit unsigned, 16-bit signed or 32-bit float samples, striped or
// tiled, uncompressed, LZW or Deflate; GeoTIFF tags in Image::geo), read through core/file_io
// (no FIFO, device or folder) and decoded from memory. A channel other than kSingleChannel
// reads that channel of an RGB(A) or gray + alpha PNG or TIFF. TIFF values: unsigned
// integers normalized like PNG (value / 255, value / 65535), signed 16-bit and float kept as
// they are (metres, for DEMs). Throws InputError naming the file (and pixel, for NaN/Inf) on
// any problem.
Image loadImage(const std::string& path, int channel = kSingleChannel);
// Largest TIFF file read (the largest image the limits allow, 4 channels of 32 bits, twice).
constexpr uint64_t kMaxTiffFileBytes = uint64_t(8) << 30;
// Little-endian raw file of exactly width * height samples.
Image loadRaw(const std::string& path, RawFormat format, int width, int height);
// probeImage / probeRaw and loadImage / loadRaw by inputFormatOf(path); raw sizes are only
// used for raw files. Unknown extensions are probed by signature like .png / .exr.
ImageInfo probeInput(const std::string& path, int rawWidth, int rawHeight, int channel = kSingleChannel);
Image loadInput(const std::string& path, int rawWidth, int rawHeight, int channel = kSingleChannel);

// Largest PNG or EXR file accepted for an image of this header: twice the decoded samples
// plus 16 MiB of metadata (no encoder needs more; the bound keeps the file read in step with
// the image limits).
uint64_t imageFileLimit(const ImageInfo& info);
// Peak bytes a load of this image allocates (file bytes, decode buffers and the final Grid
// together), for up-front memory estimates; an upper bound.
uint64_t imageLoadPeakBytes(const ImageInfo& info);

// How image values become metres: metres = value * heightScale + heightOffset.
struct HeightMapping {
  float cellSize = 1.f;  // metres between neighbouring pixels
  float heightScale = 1.f;
  float heightOffset = 0.f;
  // The config gave neither min/max_elevation nor height_scale/offset: the file's samples are
  // metres (scale 1, offset 0), allowed only for an image whose `metres` is set.
  bool fromFile = false;
};

struct HeightGradient {
  Vec2 gradient;  // first: returned in one register, not spliced through the stack
  float height = 0;
  float slopeTangent = 0;  // Heightmap::slopeTangentAt
};

struct Heightmap {
  Heightmap() = default;
  Heightmap(Grid heights, float cell, std::vector<uint8_t> mask = {})
      : metres(std::move(heights)), cellSize(cell), noData(std::move(mask)) {}
  Grid metres;  // heights in metres
  float cellSize = 1.f;
  // Per pixel 1 where the source had no data (GeoTIFF nodata); empty: every pixel is valid.
  // Derivatives take valid neighbours only (one-sided next to a hole, 0 where a pixel has no
  // valid neighbour along an axis, and 0 at a nodata pixel itself).
  std::vector<uint8_t> noData;

  float extentX() const { return float(metres.width - 1) * cellSize; }
  float extentZ() const { return float(metres.height - 1) * cellSize; }
  // Bilinear height at a world position, clamped to the border.
  float heightAt(float x, float z) const;
  // Central-difference gradient dH/dx, dH/dz in world units (one-sided at the border),
  // bilinearly interpolated between pixels. Smooth: normals, aspect, sun exposure, tilt.
  Vec2 gradientAt(float x, float z) const;
  // The ecological slope's tangent (see pixelSlopeTangent), bilinearly interpolated between
  // pixels like gradientAt. slopeDegrees of it is the slope of the masks and of the bake.
  float slopeTangentAt(float x, float z) const;
  // True when a pixel of non-zero weight in the bilinear interpolation at (x, z) is nodata:
  // no vegetation there.
  bool noDataAt(float x, float z) const;
};

// Slope for ecology, per pixel: along each axis the mean magnitude of the two one-sided
// differences (one side only at the border),
//   s_x = (|h(i,j) - h(i-1,j)| + |h(i+1,j) - h(i,j)|) / (2 cellSize)
// and s_z likewise; tangent = sqrt(s_x^2 + s_z^2). Where the heights run one way along an axis
// s is the central difference's magnitude (the same bits): at such pixels the tangent is the
// gradient's length, and on a plane the slope is the normal's angle everywhere. Where they fold
// (a V-shaped valley floor, a ridge crest) the central difference cancels, and s reads the mean
// steepness of the two walls instead. Never below the gradient's length.
// noData (may be null): Heightmap::noData; neighbours marked there are left out as described
// there.
float pixelSlopeTangent(const Grid& g, int i, int j, float cellSize, const uint8_t* noData = nullptr);
// atan(tangent) in degrees: the one conversion of a slope tangent into the slope angle.
float slopeDegrees(float tangent);

// heightAt, gradientAt and slopeTangentAt together for callers asking millions of times (the
// bake's instances): the per-pixel derivatives are computed once, so a lookup interpolates
// four of them instead of differencing heights. Same bits as those three. Holds a pointer to
// the terrain, which must outlive it and not change.
struct HeightDerivatives {
  const Heightmap* terrain = nullptr;
  std::vector<Vec2> perPixel;  // dH/dx, dH/dz at each pixel, row by row
  std::vector<float> slopeTangent;  // pixelSlopeTangent at each pixel, row by row
  HeightGradient at(float x, float z) const;
};
HeightDerivatives heightDerivatives(const Heightmap& terrain);

// Bilinear sample of a grid whose pixel (i, j) sits at world (i * cellSize, j * cellSize),
// clamped to the border.
float sampleBilinear(const Grid& grid, float cellSize, float x, float z);

// Throws InputError unless mapping.cellSize is positive and finite. Takes the image by value:
// pass an rvalue to reuse its pixels instead of copying a large grid. The image's nodata mask
// becomes the heightmap's.
Heightmap makeHeightmap(Image image, const HeightMapping& mapping);

// Distance to the nearest river in metres over the same world extent as the heightmap,
// possibly at another resolution.
struct RiverField {
  Grid metres;
  float cellSize = 1.f;
  float distanceAt(float x, float z) const;  // bilinear, clamped
};

// From a distance image: metres = value * scale. Its extent must equal the heightmap's
// (within half a heightmap cell), else InputError naming the file.
RiverField riverFieldFromDistance(Image image, float scale, const Heightmap& terrain, const std::string& path);
// From a mask image (pixel > 0.5 is river): exact Euclidean distance transform
// (Felzenszwalb-Huttenlocher), in metres. Same extent rule. A mask without any river pixel
// gives the world diagonal everywhere (finite: "far from any river").
// Both: cellSize = heightmap extentX / (river width - 1); images must be at least 2x2.
RiverField riverFieldFromMask(const Image& image, const Heightmap& terrain, const std::string& path);
// The extent rule of both, in pixels: "" when a river image of riverWidth x riverHeight spans
// the heightmap's rectangle within half a heightmap cell on both axes, else why not (plain
// words, without a file name). Validate and the bake use this one rule.
std::string riverExtentProblem(int riverWidth, int riverHeight, int heightmapWidth, int heightmapHeight);

struct SurfaceSample {
  Vec3 normal;          // normalize(-dH/dx, 1, -dH/dz)
  float slopeDeg = 0;   // slopeDegrees(slopeTangentAt): the ecological slope, not the normal's angle
  float aspectDeg = 0;  // downslope azimuth, degrees clockwise from north (-z); 0 on flat ground
  float sunExposure = 0;  // dot(normal.xz, sun direction.xz); > 0 faces the sun
};

// Sun direction as the azimuth it shines from, degrees clockwise from north
// (180 = from the south, as in the northern hemisphere).
Vec2 sunDirectionXZ(float sunAzimuthDeg);
// withAspect = false leaves aspectDeg at 0 (saves an atan2 where it is not used).
SurfaceSample surfaceAt(const Heightmap& terrain, float x, float z, Vec2 sunDirXZ, bool withAspect = true);

}  // namespace eco
