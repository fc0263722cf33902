// TIFF and GeoTIFF reading through libtiff, from bytes in memory (libtiff never opens the
// path itself): 8/16-bit unsigned, 16-bit signed and 32-bit float samples, one channel or one
// chosen channel of several, striped or tiled, uncompressed, LZW or Deflate. The GeoTIFF tags
// (pixel scale, transformation, GeoKey directory) and GDAL's nodata tag are read directly;
// libgeotiff and GDAL are not used.
#include <tiffio.h>

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "core/error.h"
#include "terrain/image_io_internal.h"

namespace eco::detail {
namespace {

constexpr ttag_t kPixelScaleTag = 33550, kTiepointTag = 33922, kTransformationTag = 34264, kGeoKeyTag = 34735,
                 kGeoDoubleTag = 34736, kGeoAsciiTag = 34737;
constexpr uint16_t kModelTypeKey = 1024, kGeographicTypeKey = 2048, kProjectedTypeKey = 3072;
// One decoded strip or tile at most (a 32768-pixel strip of 4 floats is 512 KiB a row).
constexpr uint64_t kMaxChunkBytes = uint64_t(256) << 20;

char kPixelScaleName[] = "ModelPixelScaleTag", kTiepointName[] = "ModelTiepointTag",
     kTransformationName[] = "ModelTransformationTag", kGeoKeyName[] = "GeoKeyDirectoryTag",
     kGeoDoubleName[] = "GeoDoubleParamsTag", kGeoAsciiName[] = "GeoAsciiParamsTag";
const TIFFFieldInfo kGeoFields[] = {
    {kPixelScaleTag, -1, -1, TIFF_DOUBLE, FIELD_CUSTOM, 1, 1, kPixelScaleName},
    {kTiepointTag, -1, -1, TIFF_DOUBLE, FIELD_CUSTOM, 1, 1, kTiepointName},
    {kTransformationTag, -1, -1, TIFF_DOUBLE, FIELD_CUSTOM, 1, 1, kTransformationName},
    {kGeoKeyTag, -1, -1, TIFF_SHORT, FIELD_CUSTOM, 1, 1, kGeoKeyName},
    {kGeoDoubleTag, -1, -1, TIFF_DOUBLE, FIELD_CUSTOM, 1, 1, kGeoDoubleName},
    {kGeoAsciiTag, -1, -1, TIFF_ASCII, FIELD_CUSTOM, 1, 0, kGeoAsciiName},
};
char kNoDataName[] = "GDALNoDataValue";
const TIFFFieldInfo kNoDataField = {TIFFTAG_GDAL_NODATA, -1, -1, TIFF_ASCII, FIELD_CUSTOM, 1, 0, kNoDataName};

TIFFExtendProc previousExtender = nullptr;

// libtiff reads tags it does not know as anonymous fields of whatever type the file claims;
// registering them fixes the types TIFFGetField returns. Registered once per process, for
// every TIFF opened after (a tag libtiff already knows is left as it is).
void geoTagExtender(TIFF* tif) {
  for (const TIFFFieldInfo& f : kGeoFields)
    if (!TIFFFindField(tif, f.field_tag, TIFF_ANY)) TIFFMergeFieldInfo(tif, &f, 1);
  if (!TIFFFindField(tif, kNoDataField.field_tag, TIFF_ANY)) TIFFMergeFieldInfo(tif, &kNoDataField, 1);
  if (previousExtender) previousExtender(tif);
}

void registerGeoTags() {
  static std::once_flag once;
  std::call_once(once, [] { previousExtender = TIFFSetTagExtender(geoTagExtender); });
}

// The bytes libtiff reads through, and the first error it reported.
struct Source {
  Bytes bytes;
  uint64_t pos = 0;
  std::string error;
};

tmsize_t readProc(thandle_t h, void* buf, tmsize_t size) {
  Source& s = *static_cast<Source*>(h);
  if (size <= 0 || s.pos >= s.bytes.size) return 0;
  const uint64_t n = std::min<uint64_t>(uint64_t(size), s.bytes.size - s.pos);
  std::memcpy(buf, s.bytes.data + s.pos, size_t(n));
  s.pos += n;
  return tmsize_t(n);
}
tmsize_t writeProc(thandle_t, void*, tmsize_t) { return 0; }
toff_t seekProc(thandle_t h, toff_t off, int whence) {
  Source& s = *static_cast<Source*>(h);
  uint64_t base = whence == SEEK_SET ? 0 : whence == SEEK_CUR ? s.pos : s.bytes.size;
  if (off > std::numeric_limits<uint64_t>::max() - base) return toff_t(-1);
  s.pos = base + off;
  return s.pos;
}
int closeProc(thandle_t) { return 0; }
toff_t sizeProc(thandle_t h) { return static_cast<Source*>(h)->bytes.size; }
int mapProc(thandle_t, void**, toff_t*) { return 0; }
void unmapProc(thandle_t, void*, toff_t) {}

// libtiff's message is a printf format and its arguments.
__attribute__((format(printf, 4, 0))) int errorHandler(TIFF*, void* user, const char* module, const char* fmt,
                                                       va_list ap) {
  Source& s = *static_cast<Source*>(user);
  if (s.error.empty()) {
    char text[512];
    std::vsnprintf(text, sizeof text, fmt, ap);
    s.error = text;
    (void)module;
    for (char& c : s.error)
      if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) c = ' ';
  }
  return 1;  // handled: nothing printed
}
int warningHandler(TIFF*, void*, const char*, const char*, va_list) { return 1; }

struct TiffCloser {
  void operator()(TIFF* t) const { TIFFClose(t); }
};
using TiffPtr = std::unique_ptr<TIFF, TiffCloser>;

[[noreturn]] void fail(const std::string& path, const Source& s, const std::string& what) {
  throw InputError(path + ": " + what + (s.error.empty() ? "" : " (" + s.error + ")"));
}

TiffPtr open(const std::string& path, Source& source) {
  registerGeoTags();
  TIFFOpenOptions* options = TIFFOpenOptionsAlloc();
  TIFFOpenOptionsSetMaxSingleMemAlloc(options, tmsize_t(kMaxChunkBytes) + (tmsize_t(1) << 20));
  TIFFOpenOptionsSetErrorHandlerExtR(options, errorHandler, &source);
  TIFFOpenOptionsSetWarningHandlerExtR(options, warningHandler, &source);
  // "m": no memory mapping (the procs serve the bytes).
  TIFF* tif = TIFFClientOpenExt(path.c_str(), "rm", &source, readProc, writeProc, seekProc, closeProc, sizeProc,
                                mapProc, unmapProc, options);
  TIFFOpenOptionsFree(options);
  if (!tif) fail(path, source, "corrupt or truncated TIFF");
  return TiffPtr(tif);
}

enum class SampleType { U8, U16, I16, F32 };

struct TiffLayout {
  ImageInfo info;
  SampleType type = SampleType::U8;
  int samplesPerPixel = 1;
  int channel = 0;
  bool planar = false;  // PLANARCONFIG_SEPARATE
  bool tiled = false;
  uint32_t tileWidth = 0, tileHeight = 0, rowsPerStrip = 0;
};

const char* channelName(int c) {
  static const char* names[] = {"r", "g", "b", "a"};
  return c >= 0 && c < 4 ? names[c] : "?";
}

// The strips or tiles the decoder will read, checked against the file before anything the
// size of the image is allocated: each present (a byte count above 0), inside the file past
// its 8-byte header, none overlapping another (a million tiles pointing at the same bytes
// would decode a million times), and big enough for what it must hold: its decoded size when
// uncompressed, at most 1/kMaxInflation of it when LZW or Deflate (Deflate stops near 1032:1).
// A file whose offsets and counts disagree with its RowsPerStrip or tile size (one StripOffsets
// entry for many strips: libtiff fills the rest, and the header's bytes were read as heights)
// fails here naming the chunk.
constexpr uint64_t kMaxInflation = 4096;

void checkChunks(const std::string& path, TIFF* tif, const TiffLayout& l, uint16_t compression, uint64_t fileSize) {
  const uint64_t width = uint64_t(l.info.width), height = uint64_t(l.info.height);
  const uint64_t pixelBytes = uint64_t(l.info.bitsPerChannel / 8) * uint64_t(l.planar ? 1 : l.samplesPerPixel);
  const uint16_t plane = uint16_t(l.planar ? l.channel : 0);
  struct Chunk {
    uint64_t offset, bytes, decoded;
    uint32_t index, x, y;  // its first pixel, for the message
  };
  std::vector<Chunk> chunks;
  auto add = [&](uint32_t index, uint64_t decoded, uint64_t x, uint64_t y) {
    chunks.push_back({TIFFGetStrileOffset(tif, index), TIFFGetStrileByteCount(tif, index), decoded, index, uint32_t(x),
                      uint32_t(y)});
  };
  if (l.tiled) {
    for (uint64_t y = 0; y < height; y += l.tileHeight)
      for (uint64_t x = 0; x < width; x += l.tileWidth)
        add(TIFFComputeTile(tif, uint32_t(x), uint32_t(y), 0, plane), uint64_t(l.tileWidth) * l.tileHeight * pixelBytes, x, y);
  } else {
    for (uint64_t y = 0; y < height; y += l.rowsPerStrip)
      add(TIFFComputeStrip(tif, uint32_t(y), plane), std::min<uint64_t>(l.rowsPerStrip, height - y) * width * pixelBytes, 0, y);
  }
  // "tile 3 (pixel 16,0)" or "strip 5 (row 5)", built only for a message
  auto name = [&](const Chunk& c) {
    return l.tiled ? "tile " + std::to_string(c.index) + " (pixel " + std::to_string(c.x) + "," + std::to_string(c.y) + ")"
                   : "strip " + std::to_string(c.index) + " (row " + std::to_string(c.y) + ")";
  };
  const bool raw = compression == COMPRESSION_NONE;
  for (const Chunk& c : chunks) {
    if (c.bytes == 0) throw InputError(path + ": TIFF " + name(c) + " has no data (a sparse or damaged file)");
    if (c.offset < 8 || c.offset > fileSize || c.bytes > fileSize - c.offset)
      throw InputError(path + ": TIFF " + name(c) + " claims bytes " + std::to_string(c.offset) + " to " +
                       std::to_string(c.offset + c.bytes) + " of a " + std::to_string(fileSize) + "-byte file");
    if (raw ? c.bytes < c.decoded : c.bytes * kMaxInflation < c.decoded)
      throw InputError(path + ": TIFF " + name(c) + " holds " + std::to_string(c.bytes) + " bytes for " +
                       std::to_string(c.decoded) + " decoded (the file's strip or tile layout disagrees with its data)");
  }
  std::sort(chunks.begin(), chunks.end(), [](const Chunk& a, const Chunk& b) { return a.offset < b.offset; });
  for (size_t i = 1; i < chunks.size(); ++i)
    if (chunks[i - 1].offset + chunks[i - 1].bytes > chunks[i].offset)
      throw InputError(path + ": TIFF " + name(chunks[i]) + " overlaps " + name(chunks[i - 1]) + " in the file");
}

TiffLayout readLayout(const std::string& path, TIFF* tif, const Source& s, int channel) {
  uint32_t width = 0, height = 0;
  if (!TIFFGetField(tif, TIFFTAG_IMAGEWIDTH, &width) || !TIFFGetField(tif, TIFFTAG_IMAGELENGTH, &height))
    fail(path, s, "corrupt TIFF (no image width or length)");
  checkImageSize(path, int64_t(width), int64_t(height));
  uint16_t bits = 1, format = SAMPLEFORMAT_UINT, spp = 1, planar = PLANARCONFIG_CONTIG, compression = COMPRESSION_NONE;
  TIFFGetFieldDefaulted(tif, TIFFTAG_BITSPERSAMPLE, &bits);
  TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLEFORMAT, &format);
  TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLESPERPIXEL, &spp);
  TIFFGetFieldDefaulted(tif, TIFFTAG_PLANARCONFIG, &planar);
  TIFFGetFieldDefaulted(tif, TIFFTAG_COMPRESSION, &compression);
  if (compression != COMPRESSION_NONE && compression != COMPRESSION_LZW && compression != COMPRESSION_ADOBE_DEFLATE &&
      compression != COMPRESSION_DEFLATE)
    throw InputError(path + ": TIFF compression " + std::to_string(compression) +
                     " is not supported; save it uncompressed or with LZW or Deflate");
  if (!TIFFIsCODECConfigured(compression))
    throw InputError(path + ": this libtiff cannot decode TIFF compression " + std::to_string(compression));
  TiffLayout l;
  if (bits == 8 && format == SAMPLEFORMAT_UINT) l.type = SampleType::U8;
  else if (bits == 16 && format == SAMPLEFORMAT_UINT) l.type = SampleType::U16;
  else if (bits == 16 && format == SAMPLEFORMAT_INT) l.type = SampleType::I16;
  else if (bits == 32 && format == SAMPLEFORMAT_IEEEFP) l.type = SampleType::F32;
  else {
    const char* kind = format == SAMPLEFORMAT_UINT ? "unsigned integer"
                       : format == SAMPLEFORMAT_INT ? "signed integer"
                       : format == SAMPLEFORMAT_IEEEFP ? "float"
                                                       : "unknown-format";
    throw InputError(path + ": unsupported TIFF samples of " + std::to_string(bits) + "-bit " + kind +
                     " (expected 8/16-bit unsigned, 16-bit signed or 32-bit float)");
  }
  if (spp < 1 || spp > 4)
    throw InputError(path + ": TIFF has " + std::to_string(spp) + " samples per pixel, expected 1 to 4");
  if (channel == kSingleChannel && spp != 1)
    throw InputError(path + ": TIFF has " + std::to_string(spp) + " channels, expected a single one");
  // gray (+ alpha): a black-is-zero or white-is-zero image of one sample, or of two whose
  // second is marked as alpha (ExtraSamples)
  uint16_t photometric = PHOTOMETRIC_MINISBLACK, extraCount = 0;
  uint16_t* extra = nullptr;
  TIFFGetFieldDefaulted(tif, TIFFTAG_PHOTOMETRIC, &photometric);
  TIFFGetFieldDefaulted(tif, TIFFTAG_EXTRASAMPLES, &extraCount, &extra);
  const bool grayPhotometric = photometric == PHOTOMETRIC_MINISBLACK || photometric == PHOTOMETRIC_MINISWHITE;
  const bool gray = grayPhotometric && (spp == 1 || (spp == 2 && extraCount == 1 && extra &&
                                                     (extra[0] == EXTRASAMPLE_ASSOCALPHA || extra[0] == EXTRASAMPLE_UNASSALPHA)));
  const int sample = channel == kSingleChannel ? 0 : channelSample(channel, spp, gray);
  if (sample < 0)
    throw InputError(path + ": TIFF has " + std::to_string(spp) + " channel" + (spp == 1 ? "" : "s") +
                     (gray ? (spp == 1 ? " (gray)" : " (gray + alpha)") : "") + ", no channel '" + channelName(channel) + "'");
  l.samplesPerPixel = spp;
  l.channel = sample;
  l.planar = planar == PLANARCONFIG_SEPARATE && spp > 1;
  l.tiled = TIFFIsTiled(tif) != 0;
  const uint64_t bytesPerSample = bits / 8u;
  const uint64_t pixelBytes = l.planar ? bytesPerSample : bytesPerSample * spp;
  if (l.tiled) {
    if (!TIFFGetField(tif, TIFFTAG_TILEWIDTH, &l.tileWidth) || !TIFFGetField(tif, TIFFTAG_TILELENGTH, &l.tileHeight))
      fail(path, s, "corrupt TIFF (tile size missing)");
    if (l.tileWidth == 0 || l.tileHeight == 0 || l.tileWidth > kMaxImageSide || l.tileHeight > kMaxImageSide ||
        uint64_t(l.tileWidth) * l.tileHeight * pixelBytes > kMaxChunkBytes)
      throw InputError(path + ": corrupt TIFF (tiles of " + std::to_string(l.tileWidth) + "x" +
                       std::to_string(l.tileHeight) + " pixels)");
  } else {
    l.rowsPerStrip = height;
    TIFFGetFieldDefaulted(tif, TIFFTAG_ROWSPERSTRIP, &l.rowsPerStrip);
    l.rowsPerStrip = std::clamp<uint32_t>(l.rowsPerStrip, 1, height);
    if (uint64_t(l.rowsPerStrip) * width * pixelBytes > kMaxChunkBytes)
      throw InputError(path + ": TIFF strips of " + std::to_string(l.rowsPerStrip) + " rows are too large (at most " +
                       std::to_string(kMaxChunkBytes >> 20) + " MiB decoded per strip); save with smaller strips");
  }
  l.info = {int(width), int(height), spp, int(bits)};
  checkChunks(path, tif, l, compression, s.bytes.size);
  return l;
}

// A tag of doubles registered above, or empty.
std::vector<double> doubles(TIFF* tif, ttag_t tag) {
  uint16_t count = 0;
  double* values = nullptr;
  if (!TIFFGetField(tif, tag, &count, &values) || !values) return {};
  return std::vector<double>(values, values + count);
}

void readGeo(const std::string& path, TIFF* tif, GeoInfo& geo) {
  const std::vector<double> scale = doubles(tif, kPixelScaleTag);
  if (scale.size() >= 2) {
    geo.hasPixelScale = true;
    geo.pixelScaleX = scale[0];
    geo.pixelScaleY = scale[1];
  } else if (const std::vector<double> m = doubles(tif, kTransformationTag); m.size() == 16) {
    // Row-major 4x4 raster-to-model matrix; only an axis-aligned one has a pixel scale.
    if (m[1] != 0 || m[4] != 0)
      throw InputError(path + ": GeoTIFF model transformation is rotated or sheared; only axis-aligned rasters "
                              "are supported");
    geo.hasPixelScale = true;
    geo.pixelScaleX = std::fabs(m[0]);
    geo.pixelScaleY = std::fabs(m[5]);
  }
  if (geo.hasPixelScale && !(std::isfinite(geo.pixelScaleX) && std::isfinite(geo.pixelScaleY) &&
                             geo.pixelScaleX > 0 && geo.pixelScaleY > 0))
    throw InputError(path + ": GeoTIFF pixel scale " + std::to_string(geo.pixelScaleX) + " x " +
                     std::to_string(geo.pixelScaleY) + " is not positive and finite");

  uint16_t count = 0;
  uint16_t* keys = nullptr;
  if (TIFFGetField(tif, kGeoKeyTag, &count, &keys) && keys && count >= 4) {
    // Header: version, revision, minor revision, number of keys; then 4 shorts per key (id,
    // tag location, count, value). A location of 0 holds the value itself.
    const size_t n = std::min<size_t>(keys[3], (count - 4u) / 4u);
    int projected = 0, geographic = 0, modelType = 0;
    for (size_t k = 0; k < n; ++k) {
      const uint16_t* e = keys + 4 + 4 * k;
      if (e[1] != 0) continue;
      if (e[0] == kProjectedTypeKey) projected = e[3];
      if (e[0] == kGeographicTypeKey) geographic = e[3];
      if (e[0] == kModelTypeKey) modelType = e[3];
    }
    // 32767 is "user-defined": no code to report.
    if (projected > 0 && projected != 32767) geo.epsg = projected;
    else if (geographic > 0 && geographic != 32767) geo.epsg = geographic;
    geo.geographic = modelType == 2 || (modelType == 0 && projected == 0 && geographic > 0);
  }

  const TIFFField* field = TIFFFindField(tif, TIFFTAG_GDAL_NODATA, TIFF_ANY);
  char* text = nullptr;
  int got = 0;
  if (field && TIFFFieldPassCount(field)) {
    if (TIFFFieldReadCount(field) == TIFF_VARIABLE2) {
      uint32_t n = 0;
      got = TIFFGetField(tif, TIFFTAG_GDAL_NODATA, &n, &text);
    } else {
      uint16_t n = 0;
      got = TIFFGetField(tif, TIFFTAG_GDAL_NODATA, &n, &text);
    }
  } else if (field) {
    got = TIFFGetField(tif, TIFFTAG_GDAL_NODATA, &text);
  }
  if (got && text) {
    std::string value(text, strnlen(text, 64));
    while (!value.empty() && (value.back() == ' ' || value.back() == '\0')) value.pop_back();
    char* end = nullptr;
    const double v = std::strtod(value.c_str(), &end);
    if (value.empty() || end != value.c_str() + value.size()) {
      std::string shown;
      for (char c : value) shown += (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) ? '?' : c;
      throw InputError(path + ": GDAL_NODATA tag '" + shown + "' is not a number");
    }
    geo.hasNoData = true;
    geo.noData = v;
  }
}

// The chosen channel of one decoded chunk (a strip or a tile) into `out`, as doubles in the
// file's units, then converted. chunkWidth: pixels per chunk row.
struct Decoder {
  const TiffLayout& l;
  const GeoInfo& geo;
  Image& image;
  size_t noDataCount = 0;

  double sample(const uint8_t* p) const {
    switch (l.type) {
      case SampleType::U8: return double(p[0]);
      case SampleType::U16: { uint16_t v; std::memcpy(&v, p, 2); return double(v); }
      case SampleType::I16: { int16_t v; std::memcpy(&v, p, 2); return double(v); }
      case SampleType::F32: { float v; std::memcpy(&v, p, 4); return double(v); }
    }
    return 0;
  }
  float convert(double v) const {
    switch (l.type) {
      case SampleType::U8: return float(v) / 255.f;
      case SampleType::U16: return float(v) / 65535.f;
      default: return float(v);
    }
  }
  bool isNoData(double v) const {
    if (!geo.hasNoData) return false;
    if (std::isnan(geo.noData)) return std::isnan(v);
    // Integer samples match the value as the file's type holds it.
    return l.type == SampleType::F32 ? float(v) == float(geo.noData) : v == geo.noData;
  }
  void copy(const uint8_t* chunk, uint32_t chunkWidth, uint32_t x0, uint32_t y0, uint32_t w, uint32_t h) {
    const size_t bytesPerSample = size_t(l.info.bitsPerChannel / 8);
    const size_t stride = l.planar ? bytesPerSample : bytesPerSample * size_t(l.samplesPerPixel);
    const size_t offset = l.planar ? 0 : bytesPerSample * size_t(l.channel);
    for (uint32_t y = 0; y < h; ++y)
      for (uint32_t x = 0; x < w; ++x) {
        const double v = sample(chunk + (size_t(y) * chunkWidth + x) * stride + offset);
        const size_t k = size_t(y0 + y) * size_t(l.info.width) + size_t(x0 + x);
        if (isNoData(v)) {
          if (image.noData.empty()) image.noData.assign(image.pixels.values.size(), 0);
          image.noData[k] = 1;
          ++noDataCount;
          image.pixels.values[k] = 0;
        } else {
          image.pixels.values[k] = convert(v);
        }
      }
  }
};

// The GeoTIFF's pixels, decoded; throws on any problem.
Image decode(const std::string& path, TIFF* tif, const Source& s, int channel) {
  const TiffLayout l = readLayout(path, tif, s, channel);
  Image image{Grid(l.info.width, l.info.height), l.info.bitsPerChannel};
  image.metres = l.type == SampleType::F32 || l.type == SampleType::I16;
  readGeo(path, tif, image.geo);
  Decoder d{l, image.geo, image};
  const uint16_t plane = uint16_t(l.planar ? l.channel : 0);
  const uint32_t width = uint32_t(l.info.width), height = uint32_t(l.info.height);
  if (l.tiled) {
    std::vector<uint8_t> buffer(size_t(TIFFTileSize64(tif)));
    const uint64_t needed = uint64_t(l.tileWidth) * l.tileHeight * uint64_t(l.info.bitsPerChannel / 8) *
                            uint64_t(l.planar ? 1 : l.samplesPerPixel);
    if (buffer.size() < needed) fail(path, s, "corrupt TIFF (tile size)");
    for (uint32_t y = 0; y < height; y += l.tileHeight)
      for (uint32_t x = 0; x < width; x += l.tileWidth) {
        const uint32_t tile = TIFFComputeTile(tif, x, y, 0, plane);
        if (TIFFReadEncodedTile(tif, tile, buffer.data(), tmsize_t(buffer.size())) < tmsize_t(needed))
          fail(path, s, "corrupt or truncated TIFF tile at pixel " + std::to_string(x) + "," + std::to_string(y));
        d.copy(buffer.data(), l.tileWidth, x, y, std::min(l.tileWidth, width - x), std::min(l.tileHeight, height - y));
      }
  } else {
    std::vector<uint8_t> buffer(size_t(TIFFStripSize64(tif)));
    for (uint32_t y = 0; y < height; y += l.rowsPerStrip) {
      const uint32_t rows = std::min(l.rowsPerStrip, height - y);
      const uint64_t needed = uint64_t(rows) * width * uint64_t(l.info.bitsPerChannel / 8) *
                              uint64_t(l.planar ? 1 : l.samplesPerPixel);
      if (buffer.size() < needed) fail(path, s, "corrupt TIFF (strip size)");
      const uint32_t strip = TIFFComputeStrip(tif, y, plane);
      if (TIFFReadEncodedStrip(tif, strip, buffer.data(), tmsize_t(needed)) < tmsize_t(needed))
        fail(path, s, "corrupt or truncated TIFF strip at row " + std::to_string(y));
      d.copy(buffer.data(), width, 0, y, width, rows);
    }
  }
  if (d.noDataCount == image.pixels.values.size())
    throw InputError(path + ": every pixel holds the nodata value " + std::to_string(image.geo.noData));
  if (d.noDataCount > 0) {
    // Nodata pixels take the smallest valid value, so every pixel is finite and in range.
    float fill = std::numeric_limits<float>::infinity();
    for (size_t k = 0; k < image.pixels.values.size(); ++k)
      if (!image.noData[k] && image.pixels.values[k] < fill) fill = image.pixels.values[k];
    if (std::isfinite(fill))
      for (size_t k = 0; k < image.pixels.values.size(); ++k)
        if (image.noData[k]) image.pixels.values[k] = fill;
  }
  if (l.type == SampleType::F32) checkFinite(path, image.pixels);
  return image;
}

}  // namespace

ImageInfo probeTiff(const std::string& path, Bytes file, int channel) {
  Source source{file, 0, {}};
  TiffPtr tif = open(path, source);
  TiffLayout l = readLayout(path, tif.get(), source, channel);
  return l.info;
}

Image loadTiff(const std::string& path, std::vector<uint8_t>&& fileBytes, int channel) {
  std::vector<uint8_t> bytes = std::move(fileBytes);
  Source source{{bytes.data(), bytes.size()}, 0, {}};
  TiffPtr tif = open(path, source);
  return decode(path, tif.get(), source, channel);
}

}  // namespace eco::detail
