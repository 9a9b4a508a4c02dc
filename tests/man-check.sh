#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Checks every man page (man/*.1, or those of the directory given):
#   - groff -ww prints no warning;
#   - rendered by groff at 80 columns and by `MANWIDTH=80 man -l`, no line is
#     longer than 80 columns;
#   - the nine sections are there, in this order: NAME SYNOPSIS DESCRIPTION
#     OPTIONS "EXIT STATUS" ENVIRONMENT FILES EXAMPLES "SEE ALSO";
#   - OPTIONS names every long option the tool's tools/cli/<tool>_cli.cc
#     defines (kseg.1: the front end's options and commands, tools/kseg.cc);
#   - SEE ALSO names every other page and kafka-dump-log;
#   - kseg.1's ENVIRONMENT names every variable the code reads (getenv).
# Usage: tests/man-check.sh [MAN_DIR]
set -euo pipefail
top="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
man_dir="${1:-$top/man}"
width=80
sections=(NAME SYNOPSIS DESCRIPTION OPTIONS "EXIT STATUS" ENVIRONMENT FILES EXAMPLES "SEE ALSO")

for tool in groff man col; do
  command -v "$tool" >/dev/null || { echo "man-check: $tool not found (tests/deps.sh installs it)" >&2; exit 1; }
done
# Plain text, the same on every machine: no SGR or overstrike, no pager, no
# user preprocessing; characters counted in UTF-8.
unset MAN_KEEP_FORMATTING MANROFFOPT MANPAGER PAGER GROFF_SGR
export MANWIDTH=$width GROFF_NO_SGR=1
if locale -a 2>/dev/null | grep -qix 'c\.utf-\?8'; then export LC_ALL=C.UTF-8; else export LC_ALL=C; fi

failures=0
fail() {  # fail FILE[:LINE] MESSAGE
  echo "man-check: $1: $2"
  failures=$((failures + 1))
}

# The text of section $2 of page $1 with roff escapes for dashes, fonts and
# hyphenation removed, so that "\fB\-\-deep\fR" reads "--deep".
section_text() {
  awk -v want="$2" '
    /^\.SH/ { name = $0; sub(/^\.SH[ \t]*/, "", name); gsub(/"/, "", name); inside = (name == want); next }
    inside' "$1" |
    sed -e 's/\\-/-/g' -e 's/\\%//g' -e 's/\\&//g' -e 's/\\f[BIRP]//g' -e 's/\\f(..//g' -e 's/\\f\[[^]]*\]//g'
}

# True if $1 appears in $2 as a whole option word.
has_option() {
  grep -qE -- "(^|[^-[:alnum:]_])$1([^-[:alnum:]_]|$)" <<<"$2"
}

# Long options a CLI source defines: the names given to add_option, add_flag and
# set_version_flag, and those of the helpers in tools/cli/*.h it calls.
cli_options() {
  local src="$1" helper body
  {
    tr '\n' ' ' <"$src" | grep -oE '(add_option|add_flag|set_version_flag)\([[:space:]]*"[^"]*"' || true
    for helper in $(grep -ohE 'inline void (add_[a-z_]+)\(CLI::App' "$top"/tools/cli/*.h | sed -E 's/inline void (add_[a-z_]+).*/\1/'); do
      grep -qE "\b$helper\(" "$src" || continue
      body="$(awk -v h="$helper" '$0 ~ "inline void " h "\\(" { on = 1 } on { print } on && /^}/ { exit }' "$top"/tools/cli/*.h)"
      tr '\n' ' ' <<<"$body" | grep -oE '(add_option|add_flag)\([[:space:]]*"[^"]*"' || true
    done
  } | sed -E 's/.*"([^"]*)"/\1/' | tr ',' '\n' | grep -E '^--[a-z]' | sort -u
  echo "--help"  # CLI11's own
}

pages=("$man_dir"/*.1)
[[ -e "${pages[0]}" ]] || { echo "man-check: no man/*.1 in $man_dir" >&2; exit 1; }
names=()
for page in "${pages[@]}"; do names+=("$(basename "$page" .1)"); done

for page in "${pages[@]}"; do
  name="$(basename "$page" .1)"
  rel="${page#"$top"/}"

  # 1. groff warnings (-ww: all of them), each with its line.
  warnings="$(groff -ww -man -Tutf8 -rLL=${width}n -z "$page" 2>&1 >/dev/null || true)"
  while IFS= read -r w; do
    if [[ -n "$w" ]]; then fail "$rel" "groff: $w"; fi
  done <<<"$warnings"

  # 2. Width, as groff and as man render it.
  for renderer in groff man; do
    if [[ $renderer == groff ]]; then
      out="$(groff -man -Tutf8 -rLL=${width}n "$page" 2>/dev/null | col -bx)"
    else
      err="$(mktemp)"
      out="$(man -l "$page" 2>"$err" | col -bx)"
      while IFS= read -r w; do
        if [[ -n "$w" ]]; then fail "$rel" "man -l: $w"; fi
      done <"$err"
      rm -f "$err"
    fi
    n=0
    while IFS= read -r line; do
      n=$((n + 1))
      if ((${#line} > width)); then fail "$rel" "rendered by $renderer, line $n is ${#line} columns: $line"; fi
    done <<<"$out"
  done

  # 3. The nine sections, in order.
  mapfile -t have < <(grep -E '^\.SH' "$page" | sed -E 's/^\.SH[ \t]*//; s/"//g')
  last=-1
  for s in "${sections[@]}"; do
    at=-1
    for i in "${!have[@]}"; do
      if [[ "${have[$i]}" == "$s" ]]; then at=$i; break; fi
    done
    if ((at < 0)); then
      fail "$rel" "no section \"$s\""
    elif ((at < last)); then
      fail "$rel:$(grep -nE "^\.SH \"?$s\"?\$" "$page" | head -1 | cut -d: -f1)" "section \"$s\" out of order (want: ${sections[*]})"
    else
      last=$at
    fi
  done

  # 4. Every long option the tool defines is in OPTIONS.
  options_text="$(section_text "$page" OPTIONS)"
  if [[ $name == kseg ]]; then
    src="$top/tools/kseg.cc"
    opts="$(grep -oE 'strcmp\(cmd, "--[a-z-]+"\)' "$src" | grep -oE -- '--[a-z-]+' | sort -u)"
    # The front end's own words (help, version): an entry each.
    for word in $(grep -oE 'strcmp\(cmd, "[a-z]+"\)' "$src" | grep -oE '"[a-z]+"' | tr -d '"' | sort -u); do
      grep -qE "^\.BI? \"?$word( |\"|$)" "$page" || fail "$rel" "front-end word '$word' (tools/kseg.cc) has no entry"
    done
    # Each command: an entry (a tag line) in the page and a page of its own.
    for cmd in $(grep -oE '\{"[a-z]+", kseg::' "$src" | grep -oE '[a-z]+' | grep -v '^kseg$'); do
      grep -qE "^\.BR? $cmd( |$)" "$page" ||
        fail "$rel" "command '$cmd' (tools/kseg.cc:$(grep -n "{\"$cmd\"," "$src" | cut -d: -f1)) has no entry"
      [[ -e "$man_dir/kseg-$cmd.1" ]] || fail "$rel" "command '$cmd' has no page kseg-$cmd.1"
    done
  else
    src="$top/tools/cli/${name#kseg-}_cli.cc"
    if [[ ! -e "$src" ]]; then
      fail "$rel" "no CLI source ${src#"$top"/} to check its options against"
      opts=""
    else
      opts="$(cli_options "$src")"
    fi
  fi
  for opt in $opts; do
    has_option "$opt" "$options_text" ||
      fail "$rel" "OPTIONS does not document $opt (defined in ${src#"$top"/}:$(grep -n -- "\"$opt\|,$opt\"" "$src" | head -1 | cut -d: -f1))"
  done

  # 5. SEE ALSO names every other page, and kafka-dump-log.
  see_also="$(section_text "$page" "SEE ALSO")"
  for other in "${names[@]}"; do
    [[ $other == "$name" ]] && continue
    grep -qE "(^|[^-[:alnum:]])$other \(1\)|(^|[^-[:alnum:]])$other\(1\)" <<<"$see_also" ||
      fail "$rel" "SEE ALSO does not name $other(1)"
  done
  grep -q 'kafka-dump-log' <<<"$see_also" || fail "$rel" "SEE ALSO does not name kafka-dump-log"
done

# 6. Every environment variable the code reads is in kseg.1's ENVIRONMENT.
if [[ -e "$man_dir/kseg.1" ]]; then
  env_text="$(section_text "$man_dir/kseg.1" ENVIRONMENT)"
  while IFS=: read -r file line var; do
    grep -qw -- "$var" <<<"$env_text" || fail "${man_dir#"$top"/}/kseg.1" "ENVIRONMENT does not name $var (read at $file:$line)"
  done < <(cd "$top" && grep -rnoE --include='*.cc' --include='*.h' 'getenv\("[A-Za-z_0-9]+"\)' tools lib formats |
             sed -E 's/getenv\("([^"]*)"\)/\1/' | sort -t: -k3,3 -u)
fi

if ((failures)); then
  echo "man-check: $failures problem(s) in ${#pages[@]} pages"
  exit 1
fi
echo "man-check: ${#pages[@]} pages: no groff warning, within $width columns, all sections, every option documented"
