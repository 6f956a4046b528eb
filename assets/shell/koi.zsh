# koi shell integration for zsh. koi loads it by itself into the zsh it
# starts (no rc edit; `[shell] integration = false` turns that off). For
# shells koi does not start (ssh, tmux), add to ~/.zshrc:
#   source /path/to/koi/assets/shell/koi.zsh
# Marks prompts, commands and output (OSC 133) and reports the working
# directory (OSC 7) for the assistant.
[[ -o interactive ]] || return 0
if [[ "$TERM_PROGRAM" == "koi" && -z "${__koi_integrated-}" ]]; then
  __koi_integrated=1
  __koi_precmd() {
    local koi_status=$?
    # Only a command that ran (preexec) has an exit status to report.
    if [[ -n "${__koi_ran-}" ]]; then
      printf '\e]133;D;%s\a' "$koi_status"
      unset __koi_ran
    else
      printf '\e]133;D\a'
    fi
    printf '\e]7;file://%s%s\a' "${HOST-}" "${PWD// /%20}"
    printf '\e]133;A\a'
    # The user's .zshrc may set PS1 after this file ran: mark it each time.
    [[ "$PS1" == *$'\e]133;B\a'* ]] || PS1="${PS1}%{"$'\e]133;B\a'"%}"
  }
  __koi_preexec() {
    __koi_ran=1
    printf '\e]133;C\a'
  }
  typeset -ga precmd_functions preexec_functions
  precmd_functions+=(__koi_precmd)
  preexec_functions+=(__koi_preexec)
fi

# `#` at the prompt: Enter on a line that starts with the prefix
# ($KOI_SUGGEST_PREFIX, "# " unless koi set another; empty turns it off)
# does not run it: the words go to koi (or to `k --suggest` outside koi)
# and BUFFER becomes the suggested command, for you to read, edit and run
# with another Enter.
if [[ -z "${__koi_suggest_bound-}" ]]; then
  __koi_suggest_bound=1
  # Asks for a suggestion for $1; sets __koi_reply to "ok:COMMAND",
  # "cancelled:" or "error:WHY".
  __koi_ask() {
    __koi_reply="error:"
    if [[ "$TERM_PROGRAM" == koi && -n "${KOI_SESSION_TOKEN-}" ]]; then
      # koi answers on the terminal's input, up to a BEL; it holds back your
      # keys meanwhile, and Esc or Ctrl+C there answers "cancelled".
      # ZLE keeps the terminal raw (no echo, no line buffering) while a
      # widget runs, and puts its own state back afterwards.
      local nonce="$RANDOM$RANDOM" words="${1//[[:cntrl:]]/ }" reply="" text
      printf '\e]7717;suggest;%s;%s;zsh;%s\a' "$KOI_SESSION_TOKEN" "$nonce" "$words" >/dev/tty
      while IFS= read -r -d $'\a' -t 600 reply </dev/tty; do
        [[ "$reply" == "koi-suggest:$nonce:"* ]] && break
      done
      reply="${reply#"koi-suggest:$nonce:"}"
      [[ "$reply" == *:* ]] || return
      print -v text -- "${reply#*:}"
      __koi_reply="${reply%%:*}:$text"
    elif (( $+commands[k] )); then
      # Ctrl+C is k's to cancel on: zsh would abort the widget and drop
      # the line, so a trap of ours (this function's alone) stands in.
      setopt localoptions localtraps
      trap ':' INT
      local text status_k
      text=$(command k --suggest "$1" </dev/tty 2>/dev/tty)
      status_k=$?
      if (( status_k == 0 )) && [[ -n "$text" ]]; then
        __koi_reply="ok:$text"
      elif (( status_k == 130 )); then
        __koi_reply="cancelled:"
      fi
    fi
  }
  __koi_accept_line() {
    local prefix="${KOI_SUGGEST_PREFIX-# }"
    # Neither koi nor k to ask: the line runs (a comment does nothing).
    if [[ -z "$prefix" || "$BUFFER" != "$prefix"* ]] ||
      { [[ "$TERM_PROGRAM" != koi || -z "${KOI_SESSION_TOKEN-}" ]] && (( ! $+commands[k] )); }; then
      zle accept-line
      return
    fi
    __koi_ask "${BUFFER#"$prefix"}"
    if [[ "$__koi_reply" == ok:?* ]]; then
      BUFFER="${__koi_reply#ok:}"
      CURSOR=${#BUFFER}
    fi
    zle -R
  }
  zle -N __koi_accept_line
  __koi_bind_enter() {
    local keymap
    for keymap in emacs viins vicmd; do
      bindkey -M "$keymap" '^M' __koi_accept_line
      bindkey -M "$keymap" '^J' __koi_accept_line
    done
  }
  __koi_bind_enter
  # A .zshrc read after this file may pick another keymap or rebind:
  # bind again at the first prompt.
  __koi_bind_enter_once() {
    __koi_bind_enter
    precmd_functions=(${precmd_functions:#__koi_bind_enter_once})
  }
  typeset -ga precmd_functions
  precmd_functions+=(__koi_bind_enter_once)
fi
