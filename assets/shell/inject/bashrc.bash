# koi: the file `bash --rcfile` reads instead of ~/.bashrc in an interactive
# non-login bash that koi started. It reads ~/.bashrc as bash would have,
# then loads koi's integration from the directory this file sits in.
if [[ -f ~/.bashrc && -r ~/.bashrc ]]; then
  builtin source ~/.bashrc
fi
builtin source "${BASH_SOURCE[0]%/*}/../koi.bash"
