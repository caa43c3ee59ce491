// func_instance collapsing: what VBSP does before compiling (CMapFile::MergeInstance).
//
// Every func_instance names a map (`file`); its contents are transformed by the instance's
// origin and angles and merged into the outer map. Names are fixed up (`fixup_style` 0 prefix
// "name-", 1 postfix "-name", 2 none; the fixup name is the instance's targetname or
// "InstanceAuto<N>"), `replaceNN` "$var value" pairs are substituted into every key value and
// output, func_instance_parms entities are dropped, ids are made unique, and `sides` lists follow
// the renumbered sides. Instances nest up to a depth limit.
#pragma once

#include <filesystem>
#include <functional>
#include <string_view>

#include "levelkit/core/diagnostic.hpp"
#include "levelkit/core/result.hpp"
#include "levelkit/vmf/vmf.hpp"

namespace lk::vmf {

// Loads the map an instance refers to. `file` is the func_instance's `file` value (extension
// forced to .vmf); `from_dir` is the folder of the map that holds the func_instance.
using InstanceLoader =
    std::function<Result<Map>(std::string_view file, const std::filesystem::path& from_dir)>;

// The default loader: looks for `file` relative to `from_dir`, then relative to the enclosing
// `maps` folder (and its `instances` convention), matching each path component
// case-insensitively (real maps refer to `landingbay_audiotriggers.vmf` for a file saved as
// `landingbay_audioTriggers.vmf`).
InstanceLoader filesystem_instance_loader();

// Finds a file case-insensitively: each component of `rel` is matched against the directory
// entries under `base`. Returns the real path if found.
std::optional<std::filesystem::path> find_case_insensitive(const std::filesystem::path& base,
                                                           std::string_view rel);

struct CollapseOptions {
    int max_depth = 16;
    bool keep_instance_entities = false;  // keep the func_instance entities (as markers)
};

struct CollapseReport {
    std::size_t instances = 0;             // func_instance entities expanded
    std::size_t solids = 0, entities = 0;  // brought in
    std::size_t unresolved = 0;            // instances whose file could not be loaded (kept as is)
};

// Collapses every func_instance of `map` (in place). `map_dir` is the folder of `map` (where
// relative instance paths start). Problems (missing files, recursion) are reported and leave
// that func_instance in place.
CollapseReport collapse_instances(Map& map, const std::filesystem::path& map_dir,
                                  const InstanceLoader& loader, Diagnostics& diags,
                                  const CollapseOptions& opt = {});

}  // namespace lk::vmf
