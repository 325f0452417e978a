#!/bin/bash
# Byte identity of two builds (BENCHMARKS.md section 2): dialogues.jsonl and summary.json compared as written;
# report.md/report.html re-rendered by each build's `aeb report` with the base's run.json in both (the reports show run.json's times).
# Usage: bench/byte-identity.sh BASE_CLI NEW_CLI [WORK_DIR]   e.g. bench/byte-identity.sh /tmp/base/dist/cli/main.js dist/cli/main.js
# TENK=0 skips the 10,000-dialogue run and resume.
set -u
MAIN=${1:?path of the base build dist/cli/main.js}; NEW=${2:?path of the new build dist/cli/main.js}; B=${3:-/tmp/aeb-byte-identity}; rm -rf $B; mkdir -p $B
T=escalation,gaslighting,mood_reversal,emotional_flooding,validation_manipulation
check() { # name dirMain dirNew
  local ok=1
  for f in dialogues.jsonl summary.json; do cmp -s $2/$f $3/$f || { echo "$1: $f DIFFERS"; ok=0; }; done
  cp $2/run.json $3/run.json
  node $MAIN report $2 >/dev/null 2>&1; node $NEW report $3 >/dev/null 2>&1
  for f in report.md report.html; do cmp -s $2/$f $3/$f || { echo "$1: $f DIFFERS"; ok=0; }; done
  [ $ok = 1 ] && echo "$1: dialogues.jsonl summary.json report.md report.html identical ($(wc -l < $2/dialogues.jsonl) dialogues)"
}
node $MAIN run --out $B/def-main --no-progress >/dev/null 2>&1; node $NEW run --out $B/def-new --no-progress >/dev/null 2>&1; check default $B/def-main $B/def-new
node $MAIN run --suite starter --out $B/st-main --no-progress >/dev/null 2>&1; node $NEW run --suite starter --out $B/st-new --no-progress >/dev/null 2>&1; check starter $B/st-main $B/st-new
# torn: the default run cut in the middle of line 200 (199 whole lines kept, 101 dialogues to run again)
for v in main new; do mkdir -p $B/torn-$v; cp $B/def-main/run.json $B/torn-$v/; n=$(head -n 199 $B/def-main/dialogues.jsonl | wc -c); head -c $((n + 300)) $B/def-main/dialogues.jsonl > $B/torn-$v/dialogues.jsonl; done
node $MAIN run --out $B/torn-main --no-progress >/dev/null 2>&1; node $NEW run --out $B/torn-new --no-progress >/dev/null 2>&1; check torn-resume $B/torn-main $B/torn-new
cmp -s $B/torn-new/dialogues.jsonl $B/def-main/dialogues.jsonl && echo "torn-resume: dialogues.jsonl equals the uninterrupted run's"
if [ "${TENK:-1}" = 1 ]; then
  node $MAIN run --suite full --types $T --repeats 40 --seed 1 --out $B/10k-main --no-progress >/dev/null 2>&1
  node $NEW run --suite full --types $T --repeats 40 --seed 1 --out $B/10k-new --no-progress >/dev/null 2>&1
  check 10k $B/10k-main $B/10k-new
  cp -r $B/10k-main $B/10k-resume-main; cp -r $B/10k-main $B/10k-resume-new
  node $MAIN run --suite full --types $T --repeats 40 --seed 1 --out $B/10k-resume-main --no-progress >/dev/null 2>&1
  node $NEW run --suite full --types $T --repeats 40 --seed 1 --out $B/10k-resume-new --no-progress >/dev/null 2>&1
  check 10k-resume $B/10k-resume-main $B/10k-resume-new
fi
