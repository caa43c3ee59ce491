// Plain main() for fuzz targets built without libFuzzer: feeds every file given (or every file
// in every directory given) to LLVMFuzzerTestOneInput once, so seeds and minimized crashers run
// as regression tests under any compiler and sanitizer.
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

static int run_file(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::vector<char> buf((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(buf.data()), buf.size());
    return 1;
}

int main(int argc, char** argv) {
    int n = 0;
    for (int i = 1; i < argc; ++i) {
        std::filesystem::path p(argv[i]);
        std::error_code ec;
        if (std::filesystem::is_directory(p, ec)) {
            for (auto& e : std::filesystem::recursive_directory_iterator(p)) {
                if (e.is_regular_file()) n += run_file(e.path());
            }
        } else if (std::filesystem::is_regular_file(p, ec)) {
            n += run_file(p);
        }
    }
    std::printf("replayed %d inputs\n", n);
    return 0;
}
