#include "icl/format.h"

#include <cstdio>

namespace icl {

std::string format_number(double v, const char* printf_format) {
    char buf[64];
    std::snprintf(buf, sizeof buf, printf_format, v);
    return buf;
}

}  // namespace icl
