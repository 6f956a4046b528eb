# koi shell integration for zsh. Add to ~/.zshrc:
#   [[ "$TERM_PROGRAM" == koi ]] && source /path/to/koi/assets/shell/koi.zsh
# Marks prompts, commands and output (OSC 133) and reports the working
# directory (OSC 7) for the assistant.
if [[ "$TERM_PROGRAM" == "koi" && -z "${__koi_integrated-}" ]]; then
  __koi_integrated=1
  __koi_precmd() {
    local koi_status=$?
    printf '\e]133;D;%s\a' "$koi_status"
    printf '\e]7;file://%s%s\a' "${HOST-}" "${PWD// /%20}"
    printf '\e]133;A\a'
  }
  __koi_preexec() { printf '\e]133;C\a' }
  typeset -ga precmd_functions preexec_functions
  precmd_functions+=(__koi_precmd)
  preexec_functions+=(__koi_preexec)
  PS1="${PS1}%{"$'\e]133;B\a'"%}"
fi
