// Conversion options with one typed schema per conversion step, and the progress/cancel hooks
// long conversions take.
//
// Each handler declares the options it reads (name, type, default, help). The registry checks a
// conversion's values against the schema of the steps it runs before anything is read: an
// unknown name, a value of the wrong type or outside its choices is a usage error that lists the
// valid names. After the check every declared option has a value (its default when not given),
// so handlers read them with the typed getters and need no parsing of their own.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "levelkit/core/diagnostic.hpp"
#include "levelkit/core/result.hpp"

namespace lk {

struct OptionSpec {
    enum class Type : std::uint8_t {
        flag,     // on/off: "1"/"true"/"yes"/"on" or "0"/"false"/"no"/"off"
        integer,  // a whole number
        number,   // a finite real number
        text,     // any text (or one of `choices`)
        path,     // a file or directory
    };
    std::string_view name;  // kebab-case: the CLI takes --NAME or --set NAME=VALUE
    Type type = Type::text;
    std::string_view default_value;  // as typed by a user; empty: no value unless given
    std::string_view help;
    std::vector<std::string_view> choices;  // allowed values of a text option (empty: any)
    std::vector<std::string_view> aliases;  // older names still accepted (e.g. "vmap.texture_size")
    // Lower and upper bounds of integer and number options (inclusive).
    double min = -1e300, max = 1e300;
};

std::string_view to_string(OptionSpec::Type t);

// Option values by canonical name, as text.
class Options {
public:
    void set(std::string_view name, std::string value) { values_[std::string(name)] = value; }
    bool has(std::string_view name) const { return values_.find(name) != values_.end(); }
    void erase(std::string_view name);

    // Typed reads of checked values. Missing or (unchecked) malformed values give the fallback.
    std::optional<std::string_view> get(std::string_view name) const;
    std::string text(std::string_view name, std::string_view fallback = {}) const;
    bool flag(std::string_view name) const;
    std::optional<double> number(std::string_view name) const;
    std::optional<std::int64_t> integer(std::string_view name) const;

    const std::map<std::string, std::string, std::less<>>& values() const { return values_; }
    bool operator==(const Options&) const = default;

private:
    std::map<std::string, std::string, std::less<>> values_;
};

// Checks `given` against the union of `schemas` and returns the values under canonical names
// with every declared default filled in. Errors are "option.*" diagnostics naming the option
// and, for an unknown one, the valid names. `context` names the conversion ("bsp -> vmap") for
// the messages.
Result<Options> check_options(const Options& given, std::span<const OptionSpec* const> schema,
                              std::string_view context);

// Progress and cancellation for long work. Both are optional; the library calls `report` on the
// thread doing the work, so it must be cheap and thread-safe when several jobs run at once.
struct Progress {
    // stage: "read", "to scene", "write"...; fraction of the whole job done, 0..1.
    std::function<void(std::string_view stage, double fraction)> report;
    const std::atomic<bool>* cancel = nullptr;

    bool cancelled() const { return cancel && cancel->load(std::memory_order_relaxed); }
    void operator()(std::string_view stage, double fraction) const {
        if (report) report(stage, fraction);
    }
    // The error a cancelled step returns.
    static Diagnostic cancelled_error();
};

}  // namespace lk
