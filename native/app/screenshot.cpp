#include "screenshot.h"

#include <cstring>
#include <vector>

#include <GL/gl.h>
#include <stb_image_write.h>

icl::Status write_screenshot(const std::string& path, int width, int height) {
    if (width <= 0 || height <= 0) return icl::make_error("the window has no pixels to capture");
    std::vector<unsigned char> pixels(static_cast<size_t>(width) * height * 4);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadBuffer(GL_BACK);
    glReadPixels(0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, pixels.data());
    if (glGetError() != GL_NO_ERROR) return icl::make_error("glReadPixels failed");
    // OpenGL's rows run bottom to top; PNG's top to bottom.
    const size_t row = static_cast<size_t>(width) * 4;
    std::vector<unsigned char> flipped(pixels.size());
    for (int y = 0; y < height; ++y)
        std::memcpy(&flipped[static_cast<size_t>(y) * row], &pixels[static_cast<size_t>(height - 1 - y) * row], row);
    if (!stbi_write_png(path.c_str(), width, height, 4, flipped.data(), static_cast<int>(row)))
        return icl::make_error("cannot write " + path);
    return icl::Ok{};
}
