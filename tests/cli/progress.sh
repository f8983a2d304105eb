#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The progress bar of `echelon sim` at several terminal widths, on a
# pseudo-terminal (progress_bar.py).
# usage: progress.sh ECHELON SOURCE_DIR
set -u
exec python3 "$2/tests/cli/progress_bar.py" "$1"
