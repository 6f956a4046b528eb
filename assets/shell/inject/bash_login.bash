# koi: a login bash ignores --rcfile, so koi starts it with --posix and
# ENV naming this file, the one startup file POSIX mode reads. It leaves
# POSIX mode, puts back the ENV the user had, reads the login files bash
# would have read (/etc/profile, then the first of ~/.bash_profile,
# ~/.bash_login, ~/.profile), then loads koi's integration.
# Leaving POSIX mode also unsets the POSIXLY_CORRECT that --posix set.
builtin set +o posix
if [[ -n "${KOI_BASH_RESTORE_ENV+set}" ]]; then
  builtin export ENV="$KOI_BASH_RESTORE_ENV"
  builtin unset KOI_BASH_RESTORE_ENV
else
  builtin unset ENV
fi
if [[ -f /etc/profile && -r /etc/profile ]]; then
  builtin source /etc/profile
fi
for __koi_login_file in ~/.bash_profile ~/.bash_login ~/.profile; do
  if [[ -f "$__koi_login_file" && -r "$__koi_login_file" ]]; then
    builtin source "$__koi_login_file"
    break
  fi
done
builtin unset __koi_login_file
builtin source "${BASH_SOURCE[0]%/*}/../koi.bash"
