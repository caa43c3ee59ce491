// The command-line tool, run in-process: argument parsing, exit codes, printed reports and the
// files it writes. Fixtures are the repo's own samples.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <mutex>
#include <numeric>
#include <sstream>
#include <thread>

#include "cli.hpp"
#include "levelkit/any/jobs.hpp"
#include "support/corpus.hpp"

namespace fs = std::filesystem;

namespace {

struct CliRun {
    int code = -1;
    std::string out, err;
};

// Runs `levelkit args...` with stdout and stderr captured.
CliRun run(std::vector<std::string> args, const std::atomic<bool>* cancel = nullptr) {
    args.insert(args.begin(), "levelkit");
    char *out_buf = nullptr, *err_buf = nullptr;
    std::size_t out_len = 0, err_len = 0;
    std::FILE* out = open_memstream(&out_buf, &out_len);
    std::FILE* err = open_memstream(&err_buf, &err_len);
    lk::cli::Io io;
    io.out = out;
    io.err = err;
    io.cancel = cancel;
    CliRun r;
    r.code = lk::cli::run(args, io);
    std::fclose(out);
    std::fclose(err);
    r.out.assign(out_buf, out_len);
    r.err.assign(err_buf, err_len);
    std::free(out_buf);
    std::free(err_buf);
    return r;
}

std::string sample(const char* name) {
    return (lk::test::source_dir() / "samples" / name).string();
}

fs::path temp_dir(const std::string& name) {
    const fs::path d = fs::temp_directory_path() / ("levelkit_cli_test_" + name);
    fs::remove_all(d);
    fs::create_directories(d);
    return d;
}

}  // namespace

TEST(Cli, FormatsShowsAPathForEveryPairOfMapFormats) {
    const CliRun r = run({"formats", "--json"});
    ASSERT_EQ(r.code, 0) << r.err;
    const auto j = lk::Json::parse(r.out);
    for (const char* in : {"vmf", "bsp", "vmap", "wmp", "wmp_m"}) {
        for (const char* out : {"vmf", "vmap", "obj"}) {
            bool found = false;
            for (const auto& c : j["conversions"]) found |= c["from"] == in && c["to"] == out;
            EXPECT_TRUE(found) << in << " -> " << out;
        }
    }
    const CliRun text = run({"formats"});
    EXPECT_NE(text.out.find("bsp     -> vmap    scene"), std::string::npos) << text.out;
}

TEST(Cli, InfoJsonAndExitCodes) {
    CliRun r = run({"info", "--json", sample("demo.vmf")});
    ASSERT_EQ(r.code, 0) << r.err;
    const auto j = lk::Json::parse(r.out);
    EXPECT_EQ(j["format"], "vmf");
    EXPECT_GT(j["solids"].get<int>(), 0);

    r = run({"info", "/nonexistent/map.vmf"});
    EXPECT_EQ(r.code, 4);  // I/O
    const fs::path d = temp_dir("info");
    std::ofstream(d / "broken.vmf") << "world\n{\n\t\"id\" \"1\"\n";
    r = run({"info", (d / "broken.vmf").string()});
    EXPECT_EQ(r.code, 2);  // bad input, located
    EXPECT_NE(r.err.find("broken.vmf:"), std::string::npos) << r.err;

    r = run({"info"});
    EXPECT_EQ(r.code, 3);  // usage
    r = run({"no-such-command"});
    EXPECT_EQ(r.code, 3);
}

TEST(Cli, RoundtripAndValidate) {
    CliRun r = run({"roundtrip", sample("demo.vmf"), sample("demo.wmp")});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("2 identical, 0 differ, 0 failed"), std::string::npos) << r.out;
    r = run({"validate", "--json", sample("demo.vmf")});
    ASSERT_EQ(r.code, 0) << r.out << r.err;
    EXPECT_EQ(lk::Json::parse(r.out)["result"], "ok");
}

TEST(Cli, ConvertThroughTheSceneWritesOutputsAndCompanions) {
    const fs::path d = temp_dir("convert");
    CliRun r = run({"convert", "--json", "-q", sample("demo.vmf"), (d / "demo.vmap").string()});
    ASSERT_EQ(r.code, 0) << r.err;
    const auto j = lk::Json::parse(r.out);
    EXPECT_EQ(j["path"], "vmf -> scene -> vmap");
    EXPECT_GT(j["report"]["vmap"]["meshes"].get<int>(), 0);
    r = run({"validate", (d / "demo.vmap").string()});
    EXPECT_EQ(r.code, 0) << r.out << r.err;

    r = run({"convert", "-q", sample("demo.wmp"), (d / "demo.obj").string()});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(fs::exists(d / "demo.obj"));
    EXPECT_TRUE(fs::exists(d / "demo.mtl"));

    // Many inputs into a directory, with an extension.
    r = run({"convert", "-q", "-o", d.string(), "--to", "vmf", sample("demo.wmp"),
             (d / "demo.vmap").string()});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(fs::exists(d / "demo.vmf"));
}

TEST(Cli, OptionsAreCheckedAgainstThePath) {
    const fs::path d = temp_dir("options");
    const std::string out = (d / "x.vmap").string();
    CliRun r = run({"convert", sample("demo.vmf"), out, "--set", "no-such-option=1"});
    EXPECT_EQ(r.code, 3);
    EXPECT_NE(r.err.find("its options: collapse-instances, encoding, texture-size"),
              std::string::npos)
        << r.err;
    EXPECT_FALSE(fs::exists(out));
    // A real option of another path.
    r = run({"convert", sample("demo.vmf"), out, "--faces"});
    EXPECT_EQ(r.code, 3);
    // A bad value, and an old alias that still works.
    r = run({"convert", sample("demo.vmf"), out, "--texture-size", "big"});
    EXPECT_EQ(r.code, 3);
    EXPECT_NE(r.err.find("texture-size"), std::string::npos);
    r = run({"convert", "-q", sample("demo.vmf"), out, "--set", "vmap.texture_size=256",
             "--encoding", "keyvalues2:4"});
    EXPECT_EQ(r.code, 0) << r.err;
    r = run({"convert", sample("demo.vmf"), out, "--set", "texture-size=256", "--set",
             "vmap.texture_size=128"});
    EXPECT_EQ(r.code, 3);  // the same option twice, differently
}

TEST(Cli, ConvertRefusesToOverwriteItsInputAndNeedsAKnownOutput) {
    const fs::path d = temp_dir("overwrite");
    fs::copy_file(sample("demo.vmf"), d / "m.vmf");
    CliRun r = run({"convert", (d / "m.vmf").string(), (d / "m.vmf").string()});
    EXPECT_EQ(r.code, 4) << r.err;
    r = run({"convert", (d / "m.vmf").string(), (d / "m.unknown").string()});
    EXPECT_EQ(r.code, 3);
    r = run({"convert", (d / "m.vmf").string(), (d / "a.vmf").string(), (d / "b.vmf").string()});
    EXPECT_EQ(r.code, 3);
    r = run({"convert", (d / "m.vmf").string(), (d / "m.bsp").string()});
    EXPECT_EQ(r.code, 3);  // no path from VMF to BSP
    EXPECT_NE(r.err.find("no conversion from vmf to bsp"), std::string::npos) << r.err;
}

// --out-dir makes the directory when it is missing; one that cannot be made is an I/O error.
TEST(Cli, OutDirIsMadeWhenMissing) {
    const fs::path d = temp_dir("outdir") / "new" / "maps";
    CliRun r = run({"convert", "-q", "-o", d.string(), "--to", "vmf", sample("demo.wmp")});
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(fs::is_regular_file(d / "demo.vmf"));
    const fs::path file = temp_dir("outdir-file") / "plain";
    std::ofstream(file) << "x";
    r = run({"convert", "-q", "-o", (file / "sub").string(), "--to", "vmf", sample("demo.wmp")});
    EXPECT_EQ(r.code, 4);
    EXPECT_NE(r.err.find("cannot create the output directory"), std::string::npos) << r.err;
}

TEST(Cli, ACancelledRunWritesNothing) {
    const fs::path d = temp_dir("cancel");
    std::atomic<bool> cancel{true};
    const CliRun r =
        run({"convert", "-o", d.string(), "--to", "vmap", sample("demo.vmf"), sample("demo.wmp")},
            &cancel);
    EXPECT_EQ(r.code, 130);
    EXPECT_TRUE(fs::is_empty(d));
}

TEST(Cli, GeometryAgreesWithTheObjOutput) {
    const fs::path d = temp_dir("geometry");
    CliRun r = run({"geometry", "--json", sample("demo.vmf"), "-o", (d / "g.obj").string()});
    ASSERT_EQ(r.code, 0) << r.err;
    const auto j = lk::Json::parse(r.out);
    std::ifstream obj(d / "g.obj");
    std::string line;
    std::size_t faces = 0;
    while (std::getline(obj, line)) faces += line.rfind("f ", 0) == 0;
    EXPECT_EQ(faces, j["polygons"].get<std::size_t>());
    EXPECT_GT(faces, 0u);
}

// A command line that starts with a subcommand's name builds that subcommand alone (cli/run.cpp):
// every subcommand the full help lists must be built for its own name.
TEST(Cli, EverySubcommandOfTheHelpRunsByItsName) {
    const CliRun all = run({"--help"});
    ASSERT_EQ(all.code, 0);
    const std::size_t list = all.out.find("Subcommands:");
    ASSERT_NE(list, std::string::npos) << all.out;
    std::vector<std::string> names;
    std::size_t at = all.out.find('\n', list);
    while (at != std::string::npos && at + 3 < all.out.size() &&
           all.out.compare(at + 1, 2, "  ") == 0) {
        const std::size_t from = at + 3, to = all.out.find(' ', from);
        names.push_back(all.out.substr(from, to - from));
        at = all.out.find('\n', from);
    }
    EXPECT_GE(names.size(), 11u) << all.out;
    for (const std::string& name : names) {
        const CliRun r = run({name, "--help"});
        EXPECT_EQ(r.code, 0) << name << ": " << r.err;
        EXPECT_NE(r.out.find("Usage: levelkit " + name + " "), std::string::npos)
            << name << ": " << r.out;
    }
    // Not a subcommand: every one is built, and the usage error asks for one.
    const CliRun bad = run({"nosuch"});
    EXPECT_NE(bad.code, 0);
    EXPECT_NE(bad.err.find("A subcommand is required"), std::string::npos) << bad.err;
}

TEST(Cli, HelpListsConverterOptionsPerTarget) {
    const CliRun r = run({"convert", "--help"});
    EXPECT_EQ(r.code, 0);
    EXPECT_NE(r.out.find("--texture-size"), std::string::npos);
    EXPECT_NE(r.out.find("to vmap:"), std::string::npos) << r.out;
}

TEST(Cli, ModelsToGltfAndBackToDmxObjAndAPicture) {
    const fs::path d = temp_dir("model_gltf");
    CliRun r = run({"convert", "--json", "-q", sample("demo.smd"), (d / "demo.glb").string()});
    ASSERT_EQ(r.code, 0) << r.err;
    auto j = lk::Json::parse(r.out);
    EXPECT_EQ(j["path"], "smd -> model -> gltf");
    EXPECT_GT(j["report"]["gltf"]["triangles"].get<int>(), 0);
    r = run({"convert", "--json", "-q", (d / "demo.glb").string(), (d / "demo.dmx").string(),
             "--format", "model:22", "--encoding", "binary:9"});
    ASSERT_EQ(r.code, 0) << r.err;
    j = lk::Json::parse(r.out);
    EXPECT_EQ(j["path"], "gltf -> model -> dmx");
    EXPECT_EQ(j["report"]["dmx"]["model_version"], 22);
    r = run({"validate", (d / "demo.dmx").string()});
    EXPECT_EQ(r.code, 0) << r.out << r.err;
    r = run({"convert", "-q", (d / "demo.dmx").string(), (d / "demo.obj").string()});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(fs::exists(d / "demo.mtl"));
    r = run({"render", "-q", (d / "demo.dmx").string(), "-o", (d / "demo.png").string(), "--view",
             "iso", "--size", "64"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_GT(fs::file_size(d / "demo.png"), 100u);
}

TEST(Cli, AModelWithAClipWritesItsAnimationSmdInAnimsFolder) {
    // A reference SMD whose skeleton block has several frames carries a clip; DMX -> SMD then
    // writes the clip as anims/<clip>.smd beside the reference, creating the folder.
    const fs::path d = temp_dir("model_anims");
    std::ifstream in(sample("demo.smd"));
    std::string smd((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::string frame0 =
        "time 0\n0 0.000000 0.000000 0.000000 0.000000 0.000000 0.000000\n"
        "1 0.000000 0.000000 24.000000 0.000000 0.000000 0.000000\n";
    const auto at = smd.find(frame0);
    ASSERT_NE(at, std::string::npos);
    smd.insert(at + frame0.size(),
               "time 1\n0 0.000000 0.000000 0.000000 0.000000 0.000000 0.000000\n"
               "1 0.000000 0.000000 24.000000 0.500000 0.000000 0.000000\n"
               "time 2\n0 0.000000 0.000000 0.000000 0.000000 0.000000 0.000000\n"
               "1 0.000000 0.000000 24.000000 1.000000 0.000000 0.000000\n");
    std::ofstream(d / "crate.smd") << smd;
    CliRun r = run({"convert", "-q", (d / "crate.smd").string(), (d / "crate.dmx").string()});
    ASSERT_EQ(r.code, 0) << r.err;
    fs::create_directories(d / "out");
    r = run({"convert", "--json", "-q", (d / "crate.dmx").string(),
             (d / "out" / "crate.smd").string()});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(fs::exists(d / "out" / "crate.smd"));
    std::size_t anims = 0;
    if (fs::is_directory(d / "out" / "anims")) {
        for (const auto& e : fs::directory_iterator(d / "out" / "anims")) {
            anims += e.path().extension() == ".smd";
        }
    }
    EXPECT_EQ(anims, 1u) << r.out;
}

TEST(Cli, AClipOnlyModelIsWrittenAsTheOutputAndReportedSo) {
    // A model with a clip and no mesh has no reference SMD: the clip is the output file itself,
    // and the JSON report names that file (not anims/<clip>.smd, where nothing is written).
    const fs::path d = temp_dir("model_clip_only");
    std::ofstream(d / "walk.smd") << "version 1\nnodes\n0 \"root\" -1\n1 \"lid\" 0\nend\n"
                                     "skeleton\n"
                                     "time 0\n0 0 0 0 0 0 0\n1 0 0 24 0 0 0\n"
                                     "time 1\n0 0 0 0 0 0 0\n1 0 0 24 0.5 0 0\n"
                                     "time 2\n0 0 0 0 0 0 0\n1 0 0 24 1 0 0\nend\n";
    CliRun r = run({"convert", "-q", (d / "walk.smd").string(), (d / "walk.dmx").string()});
    ASSERT_EQ(r.code, 0) << r.err;
    fs::create_directories(d / "out");
    r = run(
        {"convert", "--json", "-q", (d / "walk.dmx").string(), (d / "out" / "clip.smd").string()});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(fs::exists(d / "out" / "clip.smd"));
    EXPECT_FALSE(fs::exists(d / "out" / "anims")) << r.out;
    const auto j = lk::Json::parse(r.out);
    ASSERT_TRUE(j.contains("report")) << r.out;
    ASSERT_TRUE(j["report"].contains("smd")) << r.out;
    EXPECT_EQ(j["report"]["smd"]["files"], lk::Json::array({"clip.smd"})) << r.out;
}

// Many files on several jobs: the heaviest start first (no large file is left running alone
// at the end), results are still handed on in the order given, and each job's reader then keeps
// to one thread.
TEST(Cli, ParallelItemsStartHeaviestFirstAndFinishInOrder) {
    const std::vector<std::uint64_t> weight = {1, 5, 3, 9, 2, 7, 9};
    const auto w = [&](std::size_t i) { return weight[i]; };
    EXPECT_EQ(lk::cli::start_order(weight.size(), w),
              (std::vector<std::size_t>{3, 6, 5, 1, 2, 4, 0}));
    EXPECT_EQ(lk::cli::start_order(3, {}), (std::vector<std::size_t>{0, 1, 2}));

    lk::cli::Io io;
    lk::cli::Context ctx(io);
    std::mutex m;
    std::vector<std::size_t> started, done;
    lk::cli::parallel_ordered(
        ctx, weight.size(), 2,
        [&](std::size_t i) {
            std::lock_guard lock(m);
            started.push_back(i);
        },
        [&](std::size_t i) { done.push_back(i); }, lk::cli::ProgressStyle::none, {}, w);
    EXPECT_EQ(started.size(), weight.size());
    EXPECT_EQ(done, (std::vector<std::size_t>{0, 1, 2, 3, 4, 5, 6}));
    EXPECT_EQ(lk::cli::reader_threads(2, 7), 1u);
    EXPECT_EQ(lk::cli::reader_threads(2, 1), 0u);
    EXPECT_EQ(lk::cli::reader_threads(1, 7), 0u);
}

// With a finish step (a batch's wait for the disk): each item is finished once, on the calling
// thread, after it ran and before it is handed on, and items are still handed on in order; with
// one job the items then run on a worker, so that finishing one overlaps running the next.
TEST(Cli, ParallelItemsAreFinishedOnTheCallingThreadWhileTheNextRun) {
    for (const unsigned jobs : {1u, 2u}) {
        lk::cli::Io io;
        lk::cli::Context ctx(io);
        const std::size_t n = 3 * lk::cli::kMaxUnfinished;
        const auto caller = std::this_thread::get_id();
        std::mutex m;
        std::vector<int> ran(n), finished(n);
        std::vector<std::size_t> done;
        bool workers_only = true, finished_here = true, finished_before_done = true;
        lk::cli::parallel_ordered(
            ctx, n, jobs,
            [&](std::size_t i) {
                std::lock_guard lock(m);
                workers_only = workers_only && std::this_thread::get_id() != caller;
                ++ran[i];
            },
            [&](std::size_t i) {
                finished_before_done = finished_before_done && finished[i] == 1;
                done.push_back(i);
            },
            lk::cli::ProgressStyle::none, {}, [](std::size_t i) { return i % 5; },
            [&](std::size_t i) {
                std::lock_guard lock(m);
                finished_here = finished_here && std::this_thread::get_id() == caller && ran[i];
                ++finished[i];
            });
        EXPECT_TRUE(workers_only) << jobs;
        EXPECT_TRUE(finished_here) << jobs;
        EXPECT_TRUE(finished_before_done) << jobs;
        EXPECT_EQ(ran, std::vector<int>(n, 1)) << jobs;
        EXPECT_EQ(finished, std::vector<int>(n, 1)) << jobs;
        std::vector<std::size_t> order(n);
        std::iota(order.begin(), order.end(), std::size_t{0});
        EXPECT_EQ(done, order) << jobs;
    }
}

// A batch puts each output in place after its conversion, on another thread: a file that
// cannot be put in place (its name is taken by a folder) fails that file alone with an I/O
// error naming it, the others are written whole, and no temporary file is left behind.
TEST(Cli, ABatchOutputThatCannotBePutInPlaceFailsAloneAndLeavesNoTemporary) {
    const fs::path d = temp_dir("batch-commit");
    const fs::path in = temp_dir("batch-commit-in");
    std::vector<std::string> args = {"convert", "--json",   "-q",   "-j", "2",
                                     "-o",      d.string(), "--to", "vmf"};
    for (int k = 0; k < 6; ++k) {
        const std::string name = "m" + std::to_string(k) + ".wmp";
        fs::copy_file(sample("demo.wmp"), in / name);
        args.push_back((in / name).string());
    }
    fs::create_directories(d / "m3.vmf");  // the name of the fourth output
    const CliRun r = run(args);
    EXPECT_EQ(r.code, 4) << r.err;
    std::istringstream lines(r.out);
    std::string line;
    std::vector<std::string> results;
    while (std::getline(lines, line)) {
        const auto j = lk::Json::parse(line);
        results.push_back(j["result"]);
        if (j["result"] == "failed") {
            EXPECT_NE(j["error"].get<std::string>().find("m3.vmf"), std::string::npos) << line;
            EXPECT_NE(j["error"].get<std::string>().find("cannot rename into place"),
                      std::string::npos)
                << line;
        }
    }
    EXPECT_EQ(results, (std::vector<std::string>{"ok", "ok", "ok", "failed", "ok", "ok"}));
    std::size_t files = 0;
    for (const auto& e : fs::directory_iterator(d)) {
        EXPECT_EQ(e.path().filename().string().find(".lk-"), std::string::npos) << e.path();
        files += e.is_regular_file();
    }
    EXPECT_EQ(files, 5u);
    EXPECT_TRUE(fs::is_empty(d / "m3.vmf"));
    // The same outputs as one at a time.
    const fs::path lone = temp_dir("batch-commit-lone");
    ASSERT_EQ(run({"convert", "-q", (in / "m0.wmp").string(), (lone / "m0.vmf").string()}).code, 0);
    const auto a = lk::read_file(lone / "m0.vmf"), b = lk::read_file(d / "m0.vmf");
    ASSERT_TRUE(a && b);
    EXPECT_GT(a->size(), 0u);
    EXPECT_EQ(*a, *b);
}

// The library's side of it: a job told to defer leaves its files pending, nothing in place, and
// commit_outputs puts them there (companions first) and lists them as an undeferred job does;
// an outcome dropped uncommitted leaves no file at all.
TEST(Cli, ADeferredJobPutsNothingInPlaceUntilCommitted) {
    const fs::path d = temp_dir("deferred");
    lk::ConvertJob job;
    job.input = sample("demo.wmp");
    job.output = d / "a.obj";
    const lk::ConvertJobOutcome now = lk::convert_file(job);
    ASSERT_TRUE(now.ok());
    ASSERT_EQ(now.written.size(), 2u);  // a.obj, a.mtl

    job.output = d / "b.obj";
    job.defer_commit = true;
    std::vector<std::string> stages;
    lk::Progress seen;
    seen.report = [&](std::string_view stage, double) { stages.emplace_back(stage); };
    lk::ConvertJobOutcome later = lk::convert_file(job, seen);
    ASSERT_TRUE(later.ok());
    EXPECT_FALSE(stages.empty());
    EXPECT_TRUE(std::find(stages.begin(), stages.end(), "done") == stages.end());
    EXPECT_TRUE(later.written.empty());
    EXPECT_EQ(later.pending.size(), 2u);
    EXPECT_FALSE(fs::exists(d / "b.obj"));
    EXPECT_FALSE(fs::exists(d / "b.mtl"));
    // Its stages end with "done" only once its files are in place.
    stages.clear();
    lk::commit_outputs(later, seen);
    EXPECT_EQ(stages, std::vector<std::string>{"done"});
    ASSERT_TRUE(later.ok());
    EXPECT_TRUE(later.pending.empty());
    EXPECT_EQ(later.written, (std::vector<fs::path>{d / "b.obj", d / "b.mtl"}));
    EXPECT_EQ(lk::read_file(d / "b.mtl").value(), lk::read_file(d / "a.mtl").value());

    job.output = d / "c.obj";
    { const lk::ConvertJobOutcome dropped = lk::convert_file(job); }
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(d)) names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    EXPECT_EQ(names, (std::vector<std::string>{"a.mtl", "a.obj", "b.mtl", "b.obj"}));
}

TEST(Cli, HugePagesAreAskedOfGlibcOnlyWhereTheSystemHasThemAndNobodyChoseOtherwise) {
    using lk::cli::huge_page_tunables;
    using lk::cli::ProcessStart;
    const std::string both = "glibc.malloc.hugetlb=1:glibc.malloc.top_pad=16777216";
    // `levelkit info` on a large map, on a system with THP on request.
    const ProcessStart info{.command = "info",
                            .input_bytes = lk::cli::kHugePageInputBytes,
                            .thp_enabled = "always [madvise] never\n"};
    const auto with = [&](auto change) {
        ProcessStart p = info;
        change(p);
        return huge_page_tunables(p);
    };
    EXPECT_EQ(huge_page_tunables(info), both);
    EXPECT_EQ(with([](ProcessStart& p) {
                  p.thp_enabled = "[always] madvise never\n";
                  p.tunables = "";
                  p.opt_out = "1";
                  p.ld_preload = "";
              }),
              both);
    // The user's other tunables are kept, and their own top pad wins.
    EXPECT_EQ(with([](ProcessStart& p) { p.tunables = "glibc.malloc.arena_max=2"; }),
              "glibc.malloc.arena_max=2:" + both);
    EXPECT_EQ(with([](ProcessStart& p) { p.tunables = "glibc.malloc.top_pad=0"; }),
              "glibc.malloc.top_pad=0:glibc.malloc.hugetlb=1");
    // A name that only starts like it is another name.
    EXPECT_EQ(with([](ProcessStart& p) { p.tunables = "glibc.malloc.hugetlbx=0"; }),
              "glibc.malloc.hugetlbx=0:" + both);
    // Already set (by the user, or by the first run): nothing to do, so no second run.
    EXPECT_EQ(with([&](ProcessStart& p) { p.tunables = both.c_str(); }), "");
    EXPECT_EQ(with([](ProcessStart& p) { p.tunables = "glibc.malloc.hugetlb=0"; }), "");
    EXPECT_EQ(with([](ProcessStart& p) { p.tunables = "a=1:glibc.malloc.hugetlb=0"; }), "");
    // No huge pages, another allocator or tool preloaded, or turned off.
    EXPECT_EQ(with([](ProcessStart& p) { p.thp_enabled = "always madvise [never]\n"; }), "");
    EXPECT_EQ(with([](ProcessStart& p) { p.thp_enabled = ""; }), "");
    EXPECT_EQ(with([](ProcessStart& p) { p.ld_preload = "/usr/lib/libjemalloc.so.2"; }), "");
    EXPECT_EQ(with([](ProcessStart& p) { p.opt_out = "0"; }), "");
    // Small inputs do not pay for a second start; conversions keep small pages.
    EXPECT_EQ(with([](ProcessStart& p) { --p.input_bytes; }), "");
    EXPECT_EQ(with([](ProcessStart& p) { p.command = "convert"; }), "");
    EXPECT_EQ(with([](ProcessStart& p) { p.command = "decompile"; }), "");
    EXPECT_EQ(with([](ProcessStart& p) { p.command = "validate"; }), both);
}

TEST(Cli, InputsCountForHugePagesWhereTheCommandBuildsTheirDocument) {
    using lk::cli::reads_into_memory;
    const lk::FormatHandler* vmf = lk::find_format("vmf");
    const lk::FormatHandler* bsp = lk::find_format("bsp");
    const lk::FormatHandler* dmx = lk::find_format("dmx");
    ASSERT_TRUE(vmf && bsp && dmx);
    // `info` counts a VMF piece by piece (summarize) and views a BSP: neither builds a model.
    EXPECT_FALSE(reads_into_memory("info", vmf));
    EXPECT_FALSE(reads_into_memory("info", bsp));
    EXPECT_TRUE(reads_into_memory("info", dmx));
    // Other commands build the VMF's model; an unknown extension may be any format.
    EXPECT_TRUE(reads_into_memory("validate", vmf));
    EXPECT_TRUE(reads_into_memory("dump", vmf));
    EXPECT_FALSE(reads_into_memory("validate", bsp));
    EXPECT_TRUE(reads_into_memory("info", nullptr));
}
