# koi shell integration for fish. Add to ~/.config/fish/config.fish:
#   test "$TERM_PROGRAM" = koi; and source /path/to/koi/assets/shell/koi.fish
# Marks prompts, command output and exit status (OSC 133) and reports the
# working directory (OSC 7) for the assistant. (fish draws its own prompt,
# so the command-line mark B is not emitted; the command text is then empty.)
if test "$TERM_PROGRAM" = koi; and not set -q __koi_integrated
    set -g __koi_integrated 1
    function __koi_prompt --on-event fish_prompt
        set -l koi_status $status
        printf '\e]133;D;%s\a' $koi_status
        printf '\e]7;file://%s%s\a' (hostname) (string replace -a ' ' '%20' -- $PWD)
        printf '\e]133;A\a'
    end
    function __koi_preexec --on-event fish_preexec
        printf '\e]133;C\a'
    end
end
