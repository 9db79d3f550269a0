// The current OpenGL framebuffer as a PNG file (stb_image_write): for scripted runs
// and the app's tests.
#pragma once
#include <string>

#include <icl/expected.h>

icl::Status write_screenshot(const std::string& path, int width, int height);
