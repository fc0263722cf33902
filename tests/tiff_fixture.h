#pragma once
// GeoTIFF fixtures written directly with libtiff (no GDAL): any sample type, striped or tiled,
// any compression, with the GeoTIFF pixel scale, GeoKey directory and GDAL nodata tags.
// Written apart from the reader in src/terrain/tiff_read.cpp: the tags are registered here
// with their own definitions when libtiff does not know them yet.
#include <tiffio.h>

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace eco::test {

struct TiffSpec {
  int width = 0, height = 0;
  int samplesPerPixel = 1;
  int bits = 16;
  int sampleFormat = SAMPLEFORMAT_UINT;
  bool tiled = false;
  int tileSize = 16;     // tiled: tile width and height (a multiple of 16)
  int rowsPerStrip = 5;  // striped
  int compression = COMPRESSION_NONE;
  int predictor = 0;     // 0: none; 2 horizontal; 3 floating point
  bool planarSeparate = false;
  std::vector<double> pixelScale;  // ModelPixelScale (3 values) when not empty
  std::vector<uint16_t> geoKeys;   // GeoKeyDirectory when not empty
  std::string noData;              // GDAL_NODATA when not empty
};

inline char* tiffFieldName(const char* name) { return const_cast<char*>(name); }

inline void registerFixtureTags(TIFF* tif) {
  static const TIFFFieldInfo fields[] = {
      {33550, -1, -1, TIFF_DOUBLE, FIELD_CUSTOM, 1, 1, tiffFieldName("FixturePixelScale")},
      {34735, -1, -1, TIFF_SHORT, FIELD_CUSTOM, 1, 1, tiffFieldName("FixtureGeoKeys")},
      {42113, -1, -1, TIFF_ASCII, FIELD_CUSTOM, 1, 0, tiffFieldName("FixtureNoData")},
  };
  for (const TIFFFieldInfo& f : fields)
    if (!TIFFFindField(tif, f.field_tag, TIFF_ANY)) TIFFMergeFieldInfo(tif, &f, 1);
}

// data: width * height * samplesPerPixel samples of the spec's type, pixel-interleaved, in
// native byte order.
inline void writeTiff(const std::string& path, const TiffSpec& s, const void* data) {
  TIFF* tif = TIFFOpen(path.c_str(), "w");
  if (!tif) throw std::runtime_error("cannot create " + path);
  registerFixtureTags(tif);
  TIFFSetField(tif, TIFFTAG_IMAGEWIDTH, uint32_t(s.width));
  TIFFSetField(tif, TIFFTAG_IMAGELENGTH, uint32_t(s.height));
  TIFFSetField(tif, TIFFTAG_SAMPLESPERPIXEL, uint16_t(s.samplesPerPixel));
  TIFFSetField(tif, TIFFTAG_BITSPERSAMPLE, uint16_t(s.bits));
  TIFFSetField(tif, TIFFTAG_SAMPLEFORMAT, uint16_t(s.sampleFormat));
  TIFFSetField(tif, TIFFTAG_PHOTOMETRIC, uint16_t(s.samplesPerPixel >= 3 ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK));
  TIFFSetField(tif, TIFFTAG_PLANARCONFIG, uint16_t(s.planarSeparate ? PLANARCONFIG_SEPARATE : PLANARCONFIG_CONTIG));
  if (s.samplesPerPixel == 2 || s.samplesPerPixel == 4) {
    uint16_t extra = EXTRASAMPLE_UNASSALPHA;
    TIFFSetField(tif, TIFFTAG_EXTRASAMPLES, uint16_t(1), &extra);
  }
  TIFFSetField(tif, TIFFTAG_COMPRESSION, uint16_t(s.compression));
  if (s.predictor) TIFFSetField(tif, TIFFTAG_PREDICTOR, uint16_t(s.predictor));
  if (!s.pixelScale.empty()) TIFFSetField(tif, 33550, uint16_t(s.pixelScale.size()), s.pixelScale.data());
  if (!s.geoKeys.empty()) TIFFSetField(tif, 34735, uint16_t(s.geoKeys.size()), s.geoKeys.data());
  if (!s.noData.empty()) {
    const TIFFField* f = TIFFFindField(tif, 42113, TIFF_ANY);
    if (f && TIFFFieldPassCount(f)) {
      if (TIFFFieldWriteCount(f) == TIFF_VARIABLE2)
        TIFFSetField(tif, 42113, uint32_t(s.noData.size() + 1), s.noData.c_str());
      else
        TIFFSetField(tif, 42113, int(s.noData.size() + 1), s.noData.c_str());
    } else {
      TIFFSetField(tif, 42113, s.noData.c_str());
    }
  }
  const size_t bytes = size_t(s.bits / 8);
  const size_t spp = size_t(s.samplesPerPixel);
  const auto* in = static_cast<const uint8_t*>(data);
  const int planes = s.planarSeparate ? s.samplesPerPixel : 1;
  const size_t pixelBytes = s.planarSeparate ? bytes : bytes * spp;
  // The sample bytes of pixel (x, y) in plane p as they go into a chunk.
  auto put = [&](uint8_t* out, int x, int y, int p) {
    const uint8_t* src = in + (size_t(y) * size_t(s.width) + size_t(x)) * bytes * spp;
    if (s.planarSeparate) std::memcpy(out, src + size_t(p) * bytes, bytes);
    else std::memcpy(out, src, bytes * spp);
  };
  bool ok = true;
  if (s.tiled) {
    TIFFSetField(tif, TIFFTAG_TILEWIDTH, uint32_t(s.tileSize));
    TIFFSetField(tif, TIFFTAG_TILELENGTH, uint32_t(s.tileSize));
    std::vector<uint8_t> tile(size_t(s.tileSize) * size_t(s.tileSize) * pixelBytes);
    for (int p = 0; p < planes; ++p)
      for (int ty = 0; ty < s.height; ty += s.tileSize)
        for (int tx = 0; tx < s.width; tx += s.tileSize) {
          std::fill(tile.begin(), tile.end(), uint8_t(0));
          for (int y = 0; y < s.tileSize && ty + y < s.height; ++y)
            for (int x = 0; x < s.tileSize && tx + x < s.width; ++x)
              put(&tile[(size_t(y) * size_t(s.tileSize) + size_t(x)) * pixelBytes], tx + x, ty + y, p);
          ok &= TIFFWriteTile(tif, tile.data(), uint32_t(tx), uint32_t(ty), 0, uint16_t(p)) >= 0;
        }
  } else {
    TIFFSetField(tif, TIFFTAG_ROWSPERSTRIP, uint32_t(s.rowsPerStrip));
    std::vector<uint8_t> row(size_t(s.width) * pixelBytes);
    for (int p = 0; p < planes; ++p)
      for (int y = 0; y < s.height; ++y) {
        for (int x = 0; x < s.width; ++x) put(&row[size_t(x) * pixelBytes], x, y, p);
        ok &= TIFFWriteScanline(tif, row.data(), uint32_t(y), uint16_t(p)) >= 0;
      }
  }
  TIFFClose(tif);
  if (!ok) throw std::runtime_error("libtiff failed to write " + path);
}

// A GeoKey directory naming a projected CRS (GTModelType 1) with this EPSG code, or a
// geographic one (GTModelType 2).
inline std::vector<uint16_t> geoKeysFor(uint16_t epsg, bool geographic = false) {
  return {1, 1, 0, 2, 1024, 0, 1, uint16_t(geographic ? 2 : 1), uint16_t(geographic ? 2048 : 3072), 0, 1, epsg};
}

}  // namespace eco::test
