# koi shell integration for bash (4.4+). Add to ~/.bashrc:
#   [ "$TERM_PROGRAM" = koi ] && source /path/to/koi/assets/shell/koi.bash
# It marks prompts, commands and their output (OSC 133) and reports the
# working directory (OSC 7), so the assistant (Ctrl+Shift+L) can see the
# last command you ran and what it printed.
if [[ "$TERM_PROGRAM" == "koi" && -z "${__koi_integrated-}" ]]; then
  __koi_integrated=1
  __koi_prompt() {
    local status=$?
    printf '\e]133;D;%s\a' "$status"
    printf '\e]7;file://%s%s\a' "${HOSTNAME-}" "${PWD// /%20}"
    printf '\e]133;A\a'
    return "$status"
  }
  PROMPT_COMMAND="__koi_prompt${PROMPT_COMMAND:+;$PROMPT_COMMAND}"
  PS1="${PS1}\[\e]133;B\a\]"
  PS0=$'\e]133;C\a'"${PS0-}"
fi
