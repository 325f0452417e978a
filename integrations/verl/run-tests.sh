#!/usr/bin/env bash
# The Python tests of integrations/verl, through the installed verl 0.9 (npm run test:verl; npm test
# runs it after vitest). They need:
#   - a Python with verl 0.9.0: $AEB_VERL_PYTHON, else .venv-verl/bin/python at the repository root
#     (build it offline with: bash ../shared/verl/setup-venv.sh .venv-verl);
#   - the built CLI (npm run build): the tests start their own `aeb serve` replicas on loopback.
# Without such a Python the tests are skipped with a notice saying so and how to build it, unless
# AEB_REQUIRE_VERL=1 (what .ci/run sets), which makes the missing venv a failure.
set -euo pipefail
cd "$(dirname "$0")/../.."
PYTHON=${AEB_VERL_PYTHON:-.venv-verl/bin/python}
if ! [ -x "$PYTHON" ] || ! "$PYTHON" -c "import verl, transfer_queue" 2>/dev/null; then
  message="verl tests: no Python with verl 0.9 at $PYTHON (build one: bash ../shared/verl/setup-venv.sh .venv-verl, or set AEB_VERL_PYTHON)"
  if [ "${AEB_REQUIRE_VERL:-0}" = 1 ]; then echo "$message; AEB_REQUIRE_VERL=1, so this fails" >&2; exit 1; fi
  echo "$message: SKIPPED, nothing of the verl integration was tested" >&2
  exit 0
fi
if ! [ -f dist/cli/main.js ]; then echo "verl tests: dist/cli/main.js is missing; run npm run build first" >&2; exit 1; fi
log=$(mktemp)
trap 'rm -f "$log"' EXIT
start=$(date +%s)
status=0
# Ray and verl print their start-up to stderr; the report keeps the unittest lines and any failure.
PYTHONDONTWRITEBYTECODE=1 TOKENIZERS_PARALLELISM=false "$PYTHON" -m unittest discover -s integrations/verl/tests -v >"$log" 2>&1 || status=$?
grep -E '^(test_.* \.\.\. |Ran [0-9]+ tests|OK|FAILED)' "$log" || true
if [ "$status" != 0 ]; then
  echo "---- verl tests failed; their whole output: ----" >&2
  cat "$log" >&2
fi
ran=$(awk '/^Ran [0-9]+ tests/ {print $2}' "$log" | tail -1)
bad=$({ grep -oE '(failures|errors)=[0-9]+' "$log" || true; } | awk -F= '{sum += $2} END {print sum + 0}')
skipped=$({ grep -oE 'skipped=[0-9]+' "$log" || true; } | awk -F= '{sum += $2} END {print sum + 0}')
echo "verl tests: $(( ${ran:-0} - bad - skipped )) passed, $bad failed, $skipped skipped in $(( $(date +%s) - start )) s ($("$PYTHON" -c 'import verl; print("verl", verl.__version__)'))"
exit "$status"
