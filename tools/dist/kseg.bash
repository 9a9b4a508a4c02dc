# SPDX-License-Identifier: Apache-2.0
# bash completion for kseg and kseg-<command>. Options are read from the
# command's own --help when asked for, so they cannot fall behind it; other
# words complete as file names.
_kseg_complete() {
  local cur=${COMP_WORDS[COMP_CWORD]} cmd=${COMP_WORDS[0]} sub=
  if [[ ${cmd##*/} == kseg ]]; then
    if ((COMP_CWORD == 1)); then
      mapfile -t COMPREPLY < <(compgen -W "doctor dump excise verify reindex truncate compact txn info help version" -- "$cur")
      return
    fi
    sub=${COMP_WORDS[1]}
    [[ $sub == help ]] && { mapfile -t COMPREPLY < <(compgen -W "doctor dump excise verify reindex truncate compact txn info" -- "$cur"); return; }
  fi
  [[ $cur == -* ]] || return  # -o default: file names
  mapfile -t COMPREPLY < <(compgen -W "$("$cmd" ${sub:+"$sub"} --help 2>/dev/null | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u)" -- "$cur")
}
complete -o default -F _kseg_complete kseg kseg-dump kseg-verify kseg-reindex kseg-truncate kseg-compact kseg-txn kseg-info kseg-doctor kseg-excise
