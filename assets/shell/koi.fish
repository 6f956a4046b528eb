# koi shell integration for fish. koi loads it by itself into the fish it
# starts (no rc edit; `[shell] integration = false` turns that off). For
# shells koi does not start (ssh, tmux), add to ~/.config/fish/config.fish:
#   source /path/to/koi/assets/shell/koi.fish
# Marks prompts, command output and exit status (OSC 133) and reports the
# working directory (OSC 7) for the assistant. (fish draws its own prompt,
# so the command-line mark B is not emitted; the command text is then empty.)
status is-interactive; or exit 0
if test "$TERM_PROGRAM" = koi; and not set -q __koi_integrated
    set -g __koi_integrated 1
    function __koi_prompt --on-event fish_prompt
        set -l koi_status $status
        # Only a command that ran (fish_preexec) has an exit status to report.
        if set -q __koi_ran
            printf '\e]133;D;%s\a' $koi_status
            set -e __koi_ran
        else
            printf '\e]133;D\a'
        end
        printf '\e]7;file://%s%s\a' $hostname (string replace -a ' ' '%20' -- $PWD)
        printf '\e]133;A\a'
    end
    function __koi_preexec --on-event fish_preexec
        set -g __koi_ran 1
        printf '\e]133;C\a'
    end
end

# `#` at the prompt: Enter on a line that starts with the prefix
# ($KOI_SUGGEST_PREFIX, "# " unless koi set another; empty turns it off)
# does not run it: the words go to koi (or to `k --suggest` outside koi)
# and the command line becomes the suggested command, for you to read,
# edit and run with another Enter.
if not set -q __koi_suggest_bound
    set -g __koi_suggest_bound 1
    # Asks for a suggestion for $argv; sets __koi_reply to "ok:COMMAND",
    # "cancelled:" or "error:WHY".
    function __koi_ask
        set -g __koi_reply "error:"
        if test "$TERM_PROGRAM" = koi; and set -q KOI_SESSION_TOKEN
            # koi answers on the terminal's input, one line; it holds back
            # your keys meanwhile, and Esc or Ctrl+C there answers "cancelled".
            set -l nonce (random)(random)
            set -l words (string replace -ar '[[:cntrl:]]' ' ' -- "$argv")
            set -l saved (command stty -g </dev/tty 2>/dev/null)
            command stty -echo -icanon min 1 time 0 </dev/tty 2>/dev/null
            printf '\e]7717;suggest;%s;%s;fish;%s\a' $KOI_SESSION_TOKEN $nonce "$words" >/dev/tty
            # fish's read would start its line editor on a terminal. sh's
            # read takes the tty a byte at a time and stops at the line
            # end, so keys typed right behind koi's answer stay for fish's
            # editor (head would swallow whatever came with the line).
            set -l reply ""
            while true
                set reply (command sh -c 'IFS= read -r l && printf "%s\n" "$l"' </dev/tty)
                or break
                string match -q -- "koi-suggest:$nonce:*" "$reply"; and break
            end
            test -n "$saved"; and command stty $saved </dev/tty 2>/dev/null
            set reply (string replace -- "koi-suggest:$nonce:" "" "$reply")
            set -l parts (string split -m 1 : -- "$reply")
            test (count $parts) -eq 2; or return
            set -g __koi_reply "$parts[1]:"(printf '%b' "$parts[2]")
        else if command -q k
            set -l text (command k --suggest "$argv" </dev/tty 2>/dev/tty)
            and test -n "$text"
            and set -g __koi_reply "ok:$text"
        end
    end
    function __koi_enter
        set -q KOI_SUGGEST_PREFIX; and set -l prefix $KOI_SUGGEST_PREFIX; or set -l prefix "# "
        set -l line (commandline | string collect)
        set -l n (string length -- "$prefix")
        set -l koi 0
        test "$TERM_PROGRAM" = koi; and set -q KOI_SESSION_TOKEN; and set koi 1
        # Neither koi nor k to ask: the line runs (a comment does nothing).
        if test $n -eq 0; or test (string sub -l $n -- "$line") != "$prefix"
            or begin
                test $koi -eq 0; and not command -q k
            end
            commandline -f execute
            return
        end
        __koi_ask (string sub -s (math $n + 1) -- "$line")
        if string match -q -- "ok:?*" "$__koi_reply"
            commandline -r -- (string sub -s 4 -- "$__koi_reply")
            commandline -C (string length -- (commandline | string collect))
        end
        commandline -f repaint
    end
    function __koi_bind_enter --on-event fish_prompt
        bind \r __koi_enter
        bind \n __koi_enter
        bind -M insert \r __koi_enter
        bind -M insert \n __koi_enter
        functions -e __koi_bind_enter
    end
end
