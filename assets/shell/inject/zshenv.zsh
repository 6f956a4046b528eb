# koi: zsh reads $ZDOTDIR/.zshenv first; koi points ZDOTDIR here. This puts
# back the ZDOTDIR the user had, so zsh reads the user's .zprofile, .zshrc
# and .zlogin from there as usual, reads the user's .zshenv, then loads
# koi's integration.
builtin typeset __koi_inject_dir=${${(%):-%x}:A:h}
if [[ -n "${KOI_ZSH_RESTORE_ZDOTDIR+set}" ]]; then
  builtin export ZDOTDIR="$KOI_ZSH_RESTORE_ZDOTDIR"
  builtin unset KOI_ZSH_RESTORE_ZDOTDIR
else
  builtin unset ZDOTDIR
fi
if [[ -f "${ZDOTDIR-$HOME}/.zshenv" && -r "${ZDOTDIR-$HOME}/.zshenv" ]]; then
  builtin source "${ZDOTDIR-$HOME}/.zshenv"
fi
if [[ -o interactive ]]; then
  builtin source "$__koi_inject_dir/../koi.zsh"
fi
builtin unset __koi_inject_dir
