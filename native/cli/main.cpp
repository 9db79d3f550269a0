// The `icl` command: list and run demos, check and build lessons.
#include <cstdio>
#include <cstring>
#include <string>

static const char* kUsage =
    "usage: icl <command> [options]\n"
    "\n"
    "commands:\n"
    "  --version                 print the version\n"
    "  --help                    print this help\n";

int main(int argc, char** argv) {
    if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h")) {
        std::fputs(kUsage, stdout);
        return argc < 2 ? 2 : 0;
    }
    const std::string cmd = argv[1];
    if (cmd == "--version") {
        std::printf("icl %s\n", ICL_VERSION);
        return 0;
    }
    std::fprintf(stderr, "icl: unknown command '%s' (see icl --help)\n", cmd.c_str());
    return 2;
}
