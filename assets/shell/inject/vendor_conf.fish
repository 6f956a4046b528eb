# koi: fish reads */fish/vendor_conf.d/*.fish of every XDG_DATA_DIRS entry
# before the user's config.fish; koi put this file's data dir first. This
# puts back the XDG_DATA_DIRS the user had, then loads koi's integration.
if set -q KOI_FISH_RESTORE_XDG_DATA_DIRS
    set -gx XDG_DATA_DIRS $KOI_FISH_RESTORE_XDG_DATA_DIRS
    set -e KOI_FISH_RESTORE_XDG_DATA_DIRS
else
    set -e XDG_DATA_DIRS
end
source (status dirname)/../../../koi.fish
