#!/bin/bash
# Every figure bench/ knows how to produce, one script after the other.
set -euo pipefail
cd "$(dirname "$0")"
for b in sampler.sh observer.sh chat.sh workloads.sh completion.sh reports.sh suite.sh vm.sh; do
    echo "### bench/$b"
    ./"$b"
    echo
done
