# koi shell integration for bash (4.4+). koi loads it by itself into the
# bash it starts (no rc edit; `[shell] integration = false` turns that off).
# For shells koi does not start (ssh, tmux), add to ~/.bashrc:
#   source /path/to/koi/assets/shell/koi.bash
# It marks prompts, commands and their output (OSC 133) and reports the
# working directory (OSC 7), so the assistant (Ctrl+Shift+L) can see the
# last command you ran and what it printed.
[[ $- == *i* ]] || return 0
if [[ "$TERM_PROGRAM" == "koi" && -z "${__koi_integrated-}" ]]; then
  __koi_integrated=1
  __koi_prompt() {
    local status=$?
    # PS0 sets __koi_ran only when a command line was run: an empty Enter
    # or Ctrl+C at the prompt reports no exit status.
    if [[ -n "${__koi_ran+set}" ]]; then
      printf '\e]133;D;%s\a' "$status"
      unset __koi_ran
    else
      printf '\e]133;D\a'
    fi
    printf '\e]7;file://%s%s\a' "${HOSTNAME-}" "${PWD// /%20}"
    printf '\e]133;A\a'
    return "$status"
  }
  PROMPT_COMMAND="__koi_prompt${PROMPT_COMMAND:+;$PROMPT_COMMAND}"
  PS1="${PS1}\[\e]133;B\a\]"
  # `${__koi_ran=}` assigns an empty value and expands to nothing.
  PS0=$'\e]133;C\a''${__koi_ran=}'"${PS0-}"
fi

# `#` at the prompt: Enter on a line that starts with the prefix
# ($KOI_SUGGEST_PREFIX, "# " unless koi set another; empty turns it off)
# does not run it: the words go to koi (or to `k --suggest` outside koi)
# and the line becomes the suggested command, for you to read, edit and
# run with another Enter. bind -x cannot accept a line by itself, so Enter
# is a macro of two keys: the first runs __koi_enter, which binds the
# second to accept-line (a line to run) or to a redraw (a suggestion).
if [[ -z "${__koi_suggest_bound-}" ]] && ((BASH_VERSINFO[0] >= 4)); then
  __koi_suggest_bound=1
  __koi_second_key() {
    local keymap
    for keymap in emacs vi-insert vi-command; do
      builtin bind -m "$keymap" "\"\\C-x\\C-k2\": $1"
    done
  }
  # Asks for a suggestion for $1; sets __koi_reply to "ok:COMMAND",
  # "cancelled:" or "error:WHY".
  __koi_ask() {
    __koi_reply="error:"
    if [[ "$TERM_PROGRAM" == koi && -n "${KOI_SESSION_TOKEN-}" ]]; then
      # koi answers on the terminal's input, up to a BEL; it holds back your
      # keys meanwhile, and Esc or Ctrl+C there answers "cancelled".
      local nonce="$RANDOM$RANDOM" words="${1//[[:cntrl:]]/ }" saved reply=""
      saved=$(command stty -g 2>/dev/null)
      command stty -echo -icanon min 1 time 0 2>/dev/null
      printf '\e]7717;suggest;%s;%s;bash;%s\a' "$KOI_SESSION_TOKEN" "$nonce" "$words" >/dev/tty
      while IFS= read -r -d $'\a' -t 600 reply </dev/tty; do
        [[ "$reply" == "koi-suggest:$nonce:"* ]] && break
      done
      [[ -n "$saved" ]] && command stty "$saved" 2>/dev/null
      reply="${reply#"koi-suggest:$nonce:"}"
      [[ "$reply" == *:* ]] || return
      local text
      printf -v text '%b' "${reply#*:}"
      __koi_reply="${reply%%:*}:$text"
    elif command -v k >/dev/null 2>&1; then
      # Ctrl+C is k's to cancel on: readline's own SIGINT handling would
      # drop the line, so a trap of ours stands in while k runs.
      local text status trap_int
      trap_int=$(trap -p INT)
      trap ':' INT
      text=$(command k --suggest "$1" </dev/tty 2>/dev/tty)
      status=$?
      eval "${trap_int:-trap - INT}"
      if ((status == 0)) && [[ -n "$text" ]]; then
        __koi_reply="ok:$text"
      elif ((status == 130)); then
        __koi_reply="cancelled:"
      fi
    fi
  }
  __koi_enter() {
    local prefix="${KOI_SUGGEST_PREFIX-# }"
    # Neither koi nor k to ask: the line runs (a comment does nothing).
    if [[ -z "$prefix" || "$READLINE_LINE" != "$prefix"* ]] ||
      { [[ "$TERM_PROGRAM" != koi || -z "${KOI_SESSION_TOKEN-}" ]] && ! command -v k >/dev/null 2>&1; }; then
      __koi_second_key accept-line
      return
    fi
    __koi_second_key redraw-current-line
    __koi_ask "${READLINE_LINE#"$prefix"}"
    if [[ "$__koi_reply" == ok:?* ]]; then
      READLINE_LINE="${__koi_reply#ok:}"
      READLINE_POINT=${#READLINE_LINE}
    fi
  }
  for __koi_keymap in emacs vi-insert vi-command; do
    builtin bind -m "$__koi_keymap" -x '"\C-x\C-k1": __koi_enter'
    builtin bind -m "$__koi_keymap" '"\C-m": "\C-x\C-k1\C-x\C-k2"'
    builtin bind -m "$__koi_keymap" '"\C-j": "\C-x\C-k1\C-x\C-k2"'
  done
  unset __koi_keymap
  __koi_second_key accept-line
fi
