// SPDX-License-Identifier: Apache-2.0
#include "tools/cli/help.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <sstream>

#include <fmt/format.h>

#include "formats/properties.h"
#include "lib/time_text.h"
#include "lib/units.h"
#include "tools/ops/common/exit_codes.h"

namespace kseg {

namespace {

constexpr size_t kNameColumn = 30;  // option descriptions start here

// `text` as lines of at most `width` columns, each after `indent` spaces;
// single newlines join words, blank lines separate paragraphs.
std::string wrap(std::string_view text, size_t width, size_t indent) {
  std::string out;
  size_t from = 0;
  while (from <= text.size()) {
    size_t to = text.find("\n\n", from);
    if (to == std::string_view::npos) to = text.size();
    std::istringstream words{std::string(text.substr(from, to - from))};
    if (!out.empty()) out += "\n\n";
    out.append(indent, ' ');
    size_t col = indent;
    bool first = true;
    for (std::string w; words >> w; first = false) {
      if (!first && col + 1 + w.size() > width) {
        out += '\n';
        out.append(indent, ' ');
        col = indent;
      } else if (!first) {
        out += ' ';
        ++col;
      }
      out += w;
      col += w.size();
    }
    from = to + 2;
  }
  return out;
}

class Formatter : public CLI::Formatter {
 public:
  std::string make_description(const CLI::App* app) const override {
    return wrap(app->get_description(), help_width(), 0) + "\n\n";
  }
  std::string make_option(const CLI::Option* opt, bool positional) const override {
    std::string left = "  " + make_option_name(opt, positional) + make_option_opts(opt);
    const std::string desc = make_option_desc(opt);
    const size_t width = help_width();
    if (left.size() + 2 > kNameColumn) return left + "\n" + wrap(desc, width, kNameColumn) + "\n";
    left.append(kNameColumn - left.size(), ' ');
    // The first line starts at kNameColumn: wrap with that offset, then
    // replace the first line's indent by the name.
    std::string body = wrap(desc, width, kNameColumn);
    return left + body.substr(kNameColumn) + "\n";
  }
  std::string make_option_opts(const CLI::Option* opt) const override {
    // The type only (TEXT, INT): CLI11's "Excludes:" and the like go
    // into the description's words, not the name column.
    std::string out;
    if (opt->get_type_size() != 0) {
      if (!opt->get_type_name().empty()) out += " " + get_label(opt->get_type_name());
      if (opt->get_expected_max() == CLI::detail::expected_max_vector_size) out += " ...";
      if (opt->get_required()) out += " " + get_label("REQUIRED");
    }
    return out;
  }
  std::string make_option_desc(const CLI::Option* opt) const override {
    std::string d = opt->get_description();
    std::vector<std::string> excluded;  // by name: CLI11 keeps them in a set of pointers
    for (const CLI::Option* x : opt->get_excludes()) excluded.push_back(x->get_name());
    std::sort(excluded.begin(), excluded.end());
    for (const auto& x : excluded) {
      if (!d.empty() && d.back() != '.') d += '.';
      d += " Not with " + x + ".";
    }
    return d;
  }
  // Groups one blank line apart: CLI11 2.1 starts each group with a newline
  // and also puts one between them.
  std::string make_group(std::string group, bool positional, std::vector<const CLI::Option*> opts) const override {
    std::string out = group + ":\n";
    for (const CLI::Option* o : opts) out += make_option(o, positional);
    return out;
  }
  std::string make_positionals(const CLI::App* app) const override {
    auto opts = app->get_options([](const CLI::Option* o) { return !o->get_group().empty() && o->get_positional(); });
    return opts.empty() ? "\n" : "\n" + make_group(get_label("Positionals"), true, opts) + "\n";
  }
  std::string make_footer(const CLI::App* app) const override {
    // The footer's lines as they are (commands and exit codes are laid out).
    std::string out;
    std::istringstream in(app->get_footer());
    for (std::string ln; std::getline(in, ln);) out += ln + "\n";
    return out;
  }
};

// The name of the transform that holds an integer option to kseg's number rule.
constexpr const char* kDecimalRule = "kseg-decimal";

// Checks a value and hands CLI11 its plain decimal form ("0088" -> "88"),
// which its strtoll(base 0) cannot misread. A transform: CLI11 runs it before
// every other check of the option.
CLI::Validator decimal_rule(int64_t min, int64_t max) {
  return CLI::Validator(
      [min, max](std::string& value) -> std::string {
        auto n = properties::parse_number(value, min, max);
        if (!n.ok()) return n.error().message;
        value = std::to_string(*n);
        return {};
      },
      "", kDecimalRule);
}

// decimal_rule for a value in a unit: `parse` reads the text, `what` names
// what it takes in the message of a refusal.
template <class Parse>
CLI::Validator unit_rule(int64_t min, int64_t max, Parse parse, const char* what, const char* unit) {
  return CLI::Validator(
      [=](std::string& value) -> std::string {
        const auto n = parse(value);
        if (!n) return fmt::format("'{}' is not {}{}", value, what, value.empty() ? " (the value is empty)" : "");
        if (*n < min || *n > max) return fmt::format("{} is out of range: give {} from {} to {}", value, unit, min, max);
        value = std::to_string(*n);
        return {};
      },
      "", kDecimalRule);
}

bool is_integer_option(const CLI::Option* o) {
  if (o->get_type_size() == 0) return false;  // a flag
  const std::string type = o->get_type_name();  // "INT", "UINT", "INT:POSITIVE", ...
  const std::string base = type.substr(0, type.find(':'));
  return base == "INT" || base == "UINT";
}

bool has_decimal_rule(CLI::Option* o) {
  try {
    o->get_validator(kDecimalRule);
    return true;
  } catch (const CLI::OptionNotFound&) {
    return false;
  }
}

size_t edit_distance(std::string_view a, std::string_view b) {
  // Optimal string alignment: a swap of neighbours counts one.
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i)
    for (size_t j = 1; j <= b.size(); ++j) {
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] != b[j - 1])});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

}  // namespace

size_t help_width() {
  winsize w{};
  if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &w) == 0 && w.ws_col >= 40 && w.ws_col < 80)
    return w.ws_col;
  return 80;
}

std::string closest_spelling(std::string_view word, const std::vector<std::string>& candidates) {
  if (word.size() > 64) return {};  // bounded work on absurd input
  // A prefix of exactly one candidate, of three letters or more past the dashes.
  const size_t letters = word.size() - std::min(word.find_first_not_of('-'), word.size());
  std::string prefix_of;
  int prefixes = 0;
  for (const auto& c : candidates)
    if (letters >= 3 && c.size() > word.size() && c.compare(0, word.size(), word) == 0) {
      prefix_of = c;
      ++prefixes;
    }
  if (prefixes == 1) return prefix_of;
  std::string best;
  size_t best_d = word.size() <= 8 ? 2 : 3;  // the most edits still called a typo
  for (const auto& c : candidates) {
    if (c == word) continue;
    const size_t d = edit_distance(word, c);
    if (d <= best_d && (best.empty() || d < best_d)) {
      best = c;
      best_d = d;
    }
  }
  return best;
}

void setup_help(CLI::App& app, const char* tool, const std::vector<std::string>& examples,
                const std::vector<std::string>& exit_codes) {
  app.formatter(std::make_shared<Formatter>());
  app.set_version_flag("-V,--version", std::string(tool) + " " + KSEG_VERSION);
  app.set_help_flag("-h,--help", "Print this help and exit");
  std::string footer = "Examples:\n";
  for (const auto& e : examples) footer += "  " + e + "\n";
  footer += "\nExit status:\n";
  for (const auto& e : exit_codes) footer += "  " + e + "\n";
  footer += std::string("\nSee man ") + tool + " for every option and each problem code.";
  app.footer(footer);
}

CLI::Option* int_range(CLI::Option* opt, int64_t min, int64_t max) {
  return opt->transform(decimal_rule(min, max));
}

CLI::Option* size_option(CLI::Option* opt, int64_t min, int64_t max) {
  return opt->transform(unit_rule(min, max, parse_size, "a size: give bytes, or a number with K, M, G, T (or KiB, MiB, ...)",
                                  "bytes"));
}

CLI::Option* duration_option(CLI::Option* opt, int64_t min, int64_t max) {
  return opt->transform(unit_rule(min, max, parse_duration_ms, "a duration: give ms, or a number with ms, s, m, h, d or w",
                                  "milliseconds"));
}

CLI::Option* time_option(CLI::Option* opt) {
  return opt->transform(unit_rule(0, INT64_MAX, parse_time_ms, "a time: give epoch ms or ISO 8601 (2026-12-01T06:45:14Z)",
                                  "epoch milliseconds"));
}

CLI::Option* topic_filter(CLI::Option* opt) {
  return opt->check(
      [](const std::string& t) -> std::string {
        if (t.empty()) return "the value is empty: give a topic name";
        if (t == "." || t == "..") return "'" + t + "' is not a topic name";
        if (t.size() > 249) return "a topic name has at most 249 characters; this one has " + std::to_string(t.size());
        for (const char c : t)
          if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
                c == '-'))
            return "'" + t + "' is not a topic name: it holds a character other than ASCII letters, digits, '.', '_' and '-'";
        return {};
      },
      "", "kseg-topic");
}

CLI::Option* not_empty(CLI::Option* opt) {
  return opt->check([](const std::string& v) -> std::string { return v.empty() ? "the value is empty" : ""; }, "",
                    "kseg-not-empty");
}

std::optional<int> parse_args(CLI::App& app, int argc, char** argv) {
  const char* tool = app.get_name().c_str();
  for (CLI::Option* o : app.get_options())
    if (is_integer_option(o) && !has_decimal_rule(o))
      o->transform(o->get_type_name().starts_with("UINT") ? decimal_rule(0, INT64_MAX)
                                                           : decimal_rule(INT64_MIN, INT64_MAX));
  try {
    app.parse(argc, argv);
    return std::nullopt;
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e) == 0 ? kExitOk : kExitUsage;  // --help, --version
    std::vector<std::string> names;
    for (const CLI::Option* o : app.get_options())
      for (const auto& ln : o->get_lnames()) names.push_back("--" + ln);
    for (int i = 1; i < argc; ++i) {
      std::string_view a = argv[i];
      if (a == "--") break;
      if (a.size() < 3 || a.substr(0, 2) != "--") continue;
      const std::string name(a.substr(0, a.find('=')));
      if (app.get_option_no_throw(name) != nullptr) continue;
      const std::string near = closest_spelling(name, names);
      std::fprintf(stderr, "%s: unknown option %s%s\n", tool, name.c_str(),
                   near.empty() ? "" : ("; did you mean " + near + "?").c_str());
      std::fprintf(stderr, "Run '%s --help' for the options.\n", tool);
      return kExitUsage;
    }
    std::fprintf(stderr, "%s: %s\nRun '%s --help' for the options.\n", tool, e.what(), tool);
    return kExitUsage;
  }
}

}  // namespace kseg
