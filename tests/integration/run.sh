#!/bin/bash
# Run every tests/integration/*.sh from the repo root.
# A script exits 0 to pass, 77 to skip (after printing "SKIP: why"),
# anything else to fail.  The last line counts all three.
set -u
cd "$(dirname "$0")/../.."
pass=0 fail=0 skip=0 failed=()
for t in tests/integration/*.sh; do
	[ "$t" = tests/integration/run.sh ] && continue
	name=$(basename "$t" .sh)
	echo "--- $name"
	bash "$t"
	rc=$?
	case $rc in
	0) pass=$((pass + 1)); echo "PASS: $name" ;;
	77) skip=$((skip + 1)); echo "SKIPPED: $name" ;;
	*) fail=$((fail + 1)); failed+=("$name"); echo "FAIL: $name (status $rc)" ;;
	esac
done
[ $fail -gt 0 ] && echo "failed: ${failed[*]}"
echo "integration: $pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
