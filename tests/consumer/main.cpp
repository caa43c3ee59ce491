// Reads a VMF given on the command line through the installed library and prints its solid count.
#include <cstdio>

#include "levelkit/vmf/vmf.hpp"

int main(int argc, char** argv) {
    if (argc < 2) return 2;
    auto blob = lk::Blob::map_file(argv[1]);
    if (!blob) return 2;
    lk::Diagnostics diags;
    auto map = lk::vmf::read_map(blob.value(), diags);
    if (!map) {
        std::fprintf(stderr, "%s\n", map.error().to_string().c_str());
        return 1;
    }
    std::printf("%zu world solids\n", map->world.solids.size());
    return map->world.solids.empty() ? 1 : 0;
}
