// SPDX-License-Identifier: Apache-2.0
// fmt's compiled part, for -DKSEG_STATIC=ON only. Debian ships libfmt as a shared library alone,
// so the static build links this one file instead; every other file then compiles as in the
// shared build (ccache gives the static build the shared build's objects), where making fmt
// header-only would change, and recompile, every file of the tree.
#include <fmt/format.h>
#include <fmt/format-inl.h>

FMT_BEGIN_NAMESPACE
namespace detail {
// What format.h declares `extern template` for char, or calls out of line.
template auto thousands_sep_impl<char>(locale_ref) -> thousands_sep_result<char>;
template auto decimal_point_impl<char>(locale_ref) -> char;
template void vformat_to(buffer<char>&, string_view, basic_format_args<FMT_BUFFER_CONTEXT(char)>,
                         locale_ref);
}  // namespace detail
FMT_END_NAMESPACE
