// The fuzz build compiles the image decoders' implementations itself, with AddressSanitizer
// and coverage, instead of linking Debian's prebuilt libstb / libtinyexr: an overflow inside
// a decoder is then reported where it happens, and the fuzzer sees the decoders' branches.
// These definitions take precedence over the shared libraries' (the executable's come first).
#define STB_IMAGE_IMPLEMENTATION
#include <stb_image.h>

#define TINYEXR_IMPLEMENTATION
#include <tinyexr.h>
