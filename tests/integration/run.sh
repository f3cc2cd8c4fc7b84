#!/bin/bash
# Run every tests/integration/*.sh, then every test_*.py (pytest), from
# the repo root.
# A script exits 0 to pass, 77 to skip (after printing "SKIP: why"),
# anything else to fail.  A script that passes may still skip a part the
# host cannot do ("SKIP (host): ..."): every SKIP line is listed again at
# the end, before the last line, which counts all three.
set -u
cd "$(dirname "$0")/../.."
L=build/tests/integration/run
mkdir -p $L && : >$L/skips || exit 1
pass=0 fail=0 skip=0 failed=()
for t in tests/integration/*.sh; do
	[ "$t" = tests/integration/run.sh ] && continue
	name=$(basename "$t" .sh)
	echo "--- $name"
	bash "$t" 2>&1 | tee $L/$name.log
	rc=${PIPESTATUS[0]}
	grep '^SKIP' $L/$name.log | sed "s/^/$name: /" >>$L/skips
	case $rc in
	0) pass=$((pass + 1)); echo "PASS: $name" ;;
	77) skip=$((skip + 1)); echo "SKIPPED: $name" ;;
	*) fail=$((fail + 1)); failed+=("$name"); echo "FAIL: $name (status $rc)" ;;
	esac
done
# the pytest files (test_*.py), one entry each; their skips are listed too
for t in tests/integration/test_*.py; do
	[ -e "$t" ] || continue
	name=$(basename "$t" .py)
	echo "--- $name"
	/usr/bin/python3 -m pytest -q -rs -p no:cacheprovider "$t" 2>&1 | tee $L/$name.log
	rc=${PIPESTATUS[0]}
	grep '^SKIPPED' $L/$name.log | sed "s/^/$name: /" >>$L/skips
	case $rc in
	0) pass=$((pass + 1)); echo "PASS: $name" ;;
	*) fail=$((fail + 1)); failed+=("$name"); echo "FAIL: $name (status $rc)" ;;
	esac
done
if [ -s $L/skips ]; then
	echo "skipped on this host:"
	sed 's/^/  /' $L/skips
fi
[ $fail -gt 0 ] && echo "failed: ${failed[*]}"
echo "integration: $pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
