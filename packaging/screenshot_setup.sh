# Sourced by the screenshot scripts (after `cd` to the repository root):
#   screenshot_setup NAME STUDIO TOOL...
# checks that each TOOL is installed (packaging/screenshots.sh installs them)
# and STUDIO is built, then points XDG's config, data and cache folders at a
# throwaway directory removed on exit ($config_home), so the user's settings,
# recent files, records and kept machine measurement neither show in the
# picture nor change.
screenshot_setup() {
  local name=$1 studio=$2 tool
  shift 2
  for tool in "$@"; do
    command -v "$tool" >/dev/null || {
      echo "$name: needs $tool (packaging/screenshots.sh installs it)" >&2
      exit 1
    }
  done
  [[ -x $studio ]] || { echo "$name: $studio is not built" >&2; exit 1; }
  config_home=$(mktemp -d)
  trap 'rm -rf "$config_home"' EXIT
  export XDG_CONFIG_HOME="$config_home/config" XDG_DATA_HOME="$config_home/data"
  export XDG_CACHE_HOME="$config_home/cache"
}
