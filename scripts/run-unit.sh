#!/bin/sh
# Run the Criterion unit tests.  The report goes to a file first, then to
# the terminal: Criterion's closing "Synthesis:" line must reach the log.
set -u
unit=$1
log=${unit}.log
"$unit" --tap="${unit}.tap" >"$log" 2>&1
rc=$?
cat "$log"
grep '# SKIP' "${unit}.tap" | sed 's/^ok - /skipped: /'
exit $rc
