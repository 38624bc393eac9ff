#!/usr/bin/env bash
# Creates (once) the Python venv holding barvinok's `card`, used only as an external test oracle
# for membound-polyhedra. barvinok is GPL: it is run as a separate process, never linked.
# Prints the path of the venv's python on stdout; everything else goes to stderr.
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="${repo_root}/target/oracle-venv"
python="${venv}/bin/python"
# Pinned: the import name (`islpy`) and the `card` API were checked against this version.
package="islpy-barvinok==2026.2.2"

oracle_ready() {
    [ -x "${python}" ] && "${python}" -c 'import islpy; assert hasattr(islpy.Set, "card")' >/dev/null 2>&1
}

if ! oracle_ready; then
    mkdir -p "${repo_root}/target"
    # A lock keeps two concurrent callers (CI and a test) from building the venv at once.
    exec 9>"${repo_root}/target/oracle-venv.lock"
    flock 9
    if ! oracle_ready; then
        rm -rf "${venv}"
        python3 -m venv "${venv}" >&2
        "${python}" -m pip install --quiet --disable-pip-version-check "${package}" >&2
        oracle_ready || { echo "ensure-oracle-venv: islpy in ${venv} has no Set.card" >&2; exit 1; }
    fi
fi
echo "${python}"
